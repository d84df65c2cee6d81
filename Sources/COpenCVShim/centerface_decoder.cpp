// CenterFace's outputs: a heatmap of face centres, log box sizes, centre offsets and
// landmarks, all at a quarter of the input size.
#include "face_net_internal.hpp"

#include <cmath>

namespace {

constexpr int kHeatmap = 0;
constexpr int kScale = 1;
constexpr int kOffset = 2;
constexpr int kOutputChannels[] = {1, 2, 2, 10};
constexpr int kStride = 4;

std::vector<cv::String> outputNames(const cv::dnn::Net &net) {
    return net.getUnconnectedOutLayersNames();
}

bool hasShape(const std::vector<cv::Mat> &outputs, cv::Size input) {
    if (outputs.size() != 4) {
        return false;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        const cv::Mat &out = outputs[i];
        if (out.dims != 4 || out.size[0] != 1 || out.size[1] != kOutputChannels[i] ||
            out.size[2] != input.height / kStride || out.size[3] != input.width / kStride ||
            out.type() != CV_32F) {
            return false;
        }
    }
    return true;
}

void decode(const std::vector<cv::Mat> &outputs, cv::Size input, float scoreThreshold,
            std::vector<allspark::InputBox> &found) {
    const int rows = input.height / kStride;
    const int columns = input.width / kStride;
    const float *heat = outputs[kHeatmap].ptr<float>();
    const float *scaleY = outputs[kScale].ptr<float>();
    const float *scaleX = scaleY + rows * columns;
    const float *offsetY = outputs[kOffset].ptr<float>();
    const float *offsetX = offsetY + rows * columns;
    for (int row = 0; row < rows; ++row) {
        for (int column = 0; column < columns; ++column) {
            const int cell = row * columns + column;
            if (!(heat[cell] > scoreThreshold)) {
                continue;
            }
            // Box size from the log scales, centre from the cell plus its sub-cell offset.
            const float height = std::exp(scaleY[cell]) * kStride;
            const float width = std::exp(scaleX[cell]) * kStride;
            const float centreX = (column + offsetX[cell] + 0.5f) * kStride;
            const float centreY = (row + offsetY[cell] + 0.5f) * kStride;
            found.push_back({centreX - width / 2, centreY - height / 2, centreX + width / 2,
                             centreY + height / 2, heat[cell]});
        }
    }
}

} // namespace

const allspark::FaceNetDecoder allspark::centerFaceDecoder{"CenterFace", true, outputNames, hasShape, decode};
