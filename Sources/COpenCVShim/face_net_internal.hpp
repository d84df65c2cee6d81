// The face net's state and the two decoders it can run; not part of the C API.
#ifndef ALLSPARK_FACE_NET_INTERNAL_HPP
#define ALLSPARK_FACE_NET_INTERNAL_HPP

#include "shim_internal.hpp"

#include <opencv2/dnn.hpp>

#include <string>
#include <vector>

namespace allspark {

// A net set up for one input size. OpenCV 4.6 computes some layer shapes once: the same
// net given a second input size returns garbage, so each size gets its own.
struct SizedNet {
    cv::Size size;
    cv::dnn::Net net;
};

// Scratch for filling one plane of the net's input: the halved pictures on the way down
// (`scaleInto`), and the region's part inside the frame scaled, then widened past the side edges.
struct PlaneScratch {
    cv::Mat halved[2];
    cv::Mat inside[2];
};

// One face the decoder found, in the net input's pixels.
struct InputBox {
    float left;
    float top;
    float right;
    float bottom;
    float score;
};

// Reads one model's outputs. `outputNames` fixes the order `decode` gets them in;
// `hasShape` tells a model of this kind from any other ONNX file.
struct FaceNetDecoder {
    const char *name;
    // The model was trained on RGB (else BGR).
    bool rgbInput;
    std::vector<cv::String> (*outputNames)(const cv::dnn::Net &net);
    bool (*hasShape)(const std::vector<cv::Mat> &outputs, cv::Size input);
    void (*decode)(const std::vector<cv::Mat> &outputs, cv::Size input, float scoreThreshold,
                   std::vector<InputBox> &found);
};

extern const FaceNetDecoder centerFaceDecoder;
extern const FaceNetDecoder yuNetDecoder;

} // namespace allspark

struct allspark_face_net {
    const allspark::FaceNetDecoder *decoder;
    // The model file, parsed again for each new input size. Not its bytes: held in memory
    // they would cost as much again as the weights the net keeps.
    std::string modelPath;
    // Most recently used first; a live camera uses one size, a folder of photos several.
    std::vector<allspark::SizedNet> nets;
    std::vector<cv::String> outputNames;
    // Reused between calls: the I420 input at net size, its colour form, its three planes,
    // the blob, the outputs.
    cv::Mat i420;
    allspark::PlaneScratch planes[3];
    cv::Mat colour;
    cv::Mat channels[3];
    cv::Mat blob;
    std::vector<cv::Mat> outputs;
    // Headers over outputs another engine computed (allspark_face_net_decode).
    std::vector<cv::Mat> borrowed;
    std::vector<allspark::InputBox> found;
    std::vector<cv::Rect> candidates;
    std::vector<float> scores;
    std::vector<int> kept;
    std::string lastError;
};

#endif
