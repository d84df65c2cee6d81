// YuNet's outputs (the 2023mar model): for each stride 8, 16 and 32, one row per grid
// cell (row-major) of a class score, an objectness score, a box (centre offset in cells,
// log size in cells) and five landmarks. OpenCV 4.6's FaceDetectorYN predates this
// layout, so the net runs through cv::dnn and the rows are read here.
#include "face_net_internal.hpp"

#include <algorithm>
#include <cmath>

namespace {

constexpr int kStrides[] = {8, 16, 32};
constexpr int kStrideCount = 3;
// Values per cell in each output group, in the order outputNames lists the groups.
constexpr int kGroupWidths[] = {1, 1, 4, 10};
constexpr const char *kGroupNames[] = {"cls", "obj", "bbox", "kps"};
constexpr int kGroups = 4;

std::vector<cv::String> outputNames(const cv::dnn::Net &) {
    std::vector<cv::String> names;
    for (const char *group : kGroupNames) {
        for (int stride : kStrides) {
            names.push_back(cv::String(group) + "_" + std::to_string(stride));
        }
    }
    return names;
}

bool hasShape(const std::vector<cv::Mat> &outputs, cv::Size input) {
    if (outputs.size() != kGroups * kStrideCount) {
        return false;
    }
    for (int group = 0; group < kGroups; ++group) {
        for (int s = 0; s < kStrideCount; ++s) {
            const cv::Mat &out = outputs[static_cast<size_t>(group * kStrideCount + s)];
            const size_t cells = static_cast<size_t>(input.width / kStrides[s]) *
                                 static_cast<size_t>(input.height / kStrides[s]);
            if (out.type() != CV_32F || !out.isContinuous() ||
                out.total() != cells * static_cast<size_t>(kGroupWidths[group])) {
                return false;
            }
        }
    }
    return true;
}

float clamped(float value) { return std::min(1.0f, std::max(0.0f, value)); }

void decode(const std::vector<cv::Mat> &outputs, cv::Size input, float scoreThreshold,
            std::vector<allspark::InputBox> &found) {
    for (int s = 0; s < kStrideCount; ++s) {
        const float stride = static_cast<float>(kStrides[s]);
        const int columns = input.width / kStrides[s];
        const int rows = input.height / kStrides[s];
        const float *classScores = outputs[static_cast<size_t>(s)].ptr<float>();
        const float *objectness = outputs[static_cast<size_t>(kStrideCount + s)].ptr<float>();
        const float *boxes = outputs[static_cast<size_t>(2 * kStrideCount + s)].ptr<float>();
        for (int row = 0; row < rows; ++row) {
            for (int column = 0; column < columns; ++column) {
                const int cell = row * columns + column;
                const float score = std::sqrt(clamped(classScores[cell]) * clamped(objectness[cell]));
                if (!(score > scoreThreshold)) {
                    continue;
                }
                const float *box = boxes + 4 * cell;
                const float centreX = (column + box[0]) * stride;
                const float centreY = (row + box[1]) * stride;
                const float width = std::exp(box[2]) * stride;
                const float height = std::exp(box[3]) * stride;
                found.push_back({centreX - width / 2, centreY - height / 2, centreX + width / 2,
                                 centreY + height / 2, score});
            }
        }
    }
}

} // namespace

const allspark::FaceNetDecoder allspark::yuNetDecoder{"YuNet", false, outputNames, hasShape, decode};
