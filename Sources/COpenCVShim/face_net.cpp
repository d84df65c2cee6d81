#include "face_net_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

namespace {

constexpr size_t kNetsKept = 4;

// A region may reach past the frame's edges (the part outside is filled by reflection),
// but at least 2x2 pixels of it must be inside and it may not be absurdly large.
bool isUsable(const allspark_rect &region, const allspark_yuv420_image &image) {
    const int64_t left = std::max<int64_t>(region.x, 0);
    const int64_t top = std::max<int64_t>(region.y, 0);
    const int64_t right = std::min<int64_t>(int64_t(region.x) + region.width, image.width);
    const int64_t bottom = std::min<int64_t>(int64_t(region.y) + region.height, image.height);
    return region.width >= 2 && region.height >= 2 && region.width <= 3 * int64_t(image.width) &&
           region.height <= 3 * int64_t(image.height) && right - left >= 2 && bottom - top >= 2;
}

bool isValid(const allspark_yuv420_image &image) {
    const int chromaWidth = (image.width + 1) / 2;
    return image.y != nullptr && image.u != nullptr && image.v != nullptr && image.width >= 2 &&
           image.height >= 2 && image.y_stride >= image.width && image.u_stride >= chromaWidth &&
           image.v_stride >= chromaWidth;
}

cv::Mat borrowPlane(const uint8_t *pixels, int width, int height, int stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
}

// Where the part of `region` inside the frame lands in the net's input of `size`: the
// region maps linearly onto the input, so the outside part becomes a border.
cv::Rect insideAtNetScale(const allspark_rect &region, const cv::Rect &inside, cv::Size size) {
    const double scaleX = static_cast<double>(size.width) / region.width;
    const double scaleY = static_cast<double>(size.height) / region.height;
    const int left = std::clamp(static_cast<int>(std::lround((inside.x - region.x) * scaleX)), 0, size.width - 1);
    const int top = std::clamp(static_cast<int>(std::lround((inside.y - region.y) * scaleY)), 0, size.height - 1);
    const int right =
        std::clamp(static_cast<int>(std::lround((inside.x + inside.width - region.x) * scaleX)), left + 1, size.width);
    const int bottom =
        std::clamp(static_cast<int>(std::lround((inside.y + inside.height - region.y) * scaleY)), top + 1, size.height);
    return cv::Rect(left, top, right - left, bottom - top);
}

// Scales one plane's part of the region into `target`. Where the region reaches past the
// frame, the inside part is scaled into its share of `target` and the rest is filled:
// beyond a side edge with the inside's mirror image (a face is left-right symmetric, so a
// face cut by the side is seen whole, with its reflection), beyond the top or bottom with
// the edge row repeated (a face mirrored there would be upside down, which the net takes
// for something else).
void fillPlane(const cv::Mat &plane, const allspark_rect &region, allspark::PlaneScratch &scratch, cv::Mat target) {
    const cv::Rect frame(0, 0, plane.cols, plane.rows);
    const cv::Rect wanted(region.x, region.y, region.width, region.height);
    const cv::Rect inside = wanted & frame;
    if (inside == wanted) {
        allspark::scaleInto(plane(inside), target, scratch.halved, true);
        return;
    }
    const cv::Rect placed = insideAtNetScale(region, inside, target.size());
    // Sized once for the whole input, so a region of another shape reuses them.
    scratch.inside[0].create(target.size(), CV_8UC1);
    scratch.inside[1].create(target.size(), CV_8UC1);
    cv::Mat scaled = scratch.inside[0](cv::Rect(0, 0, placed.width, placed.height));
    allspark::scaleInto(plane(inside), scaled, scratch.halved, true);
    cv::Mat widened = scratch.inside[1](cv::Rect(0, 0, target.cols, placed.height));
    // Both sources are parts of larger scratch pictures: BORDER_ISOLATED makes OpenCV fill
    // the border from the part itself, not from the stale pixels beside it in the scratch.
    cv::copyMakeBorder(scaled, widened, 0, 0, placed.x, target.cols - placed.x - placed.width,
                       cv::BORDER_REFLECT_101 | cv::BORDER_ISOLATED);
    cv::copyMakeBorder(widened, target, placed.y, target.rows - placed.y - placed.height, 0, 0,
                       cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
}

// Scales the region's three planes straight into one contiguous I420 picture at net size,
// so the colour conversion reads every plane from one buffer.
void fillI420(allspark_face_net &state, const allspark_yuv420_image &image, const allspark_rect &region,
              int width, int height) {
    state.i420.create(height * 3 / 2, width, CV_8UC1);
    uint8_t *base = state.i420.data;
    const allspark_rect chromaRegion{region.x / 2, region.y / 2, std::max(1, region.width / 2),
                                     std::max(1, region.height / 2)};
    const int chromaWidth = (image.width + 1) / 2;
    const int chromaHeight = (image.height + 1) / 2;
    fillPlane(borrowPlane(image.y, image.width, image.height, image.y_stride), region, state.planes[0],
              cv::Mat(height, width, CV_8UC1, base));
    uint8_t *u = base + width * height;
    uint8_t *v = u + (width / 2) * (height / 2);
    fillPlane(borrowPlane(image.u, chromaWidth, chromaHeight, image.u_stride), chromaRegion, state.planes[1],
              cv::Mat(height / 2, width / 2, CV_8UC1, u));
    fillPlane(borrowPlane(image.v, chromaWidth, chromaHeight, image.v_stride), chromaRegion, state.planes[2],
              cv::Mat(height / 2, width / 2, CV_8UC1, v));
}

// The net for `size`, parsed from the model bytes the first time that size is asked for.
allspark::SizedNet &netFor(allspark_face_net &state, cv::Size size) {
    for (size_t i = 0; i < state.nets.size(); ++i) {
        if (state.nets[i].size == size) {
            std::rotate(state.nets.begin(), state.nets.begin() + static_cast<long>(i),
                        state.nets.begin() + static_cast<long>(i) + 1);
            return state.nets.front();
        }
    }
    allspark::SizedNet created{size, cv::dnn::readNetFromONNX(state.modelPath)};
    created.net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    created.net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    if (state.outputNames.empty()) {
        state.outputNames = state.decoder->outputNames(created.net);
    }
    if (state.nets.size() == kNetsKept) {
        state.nets.pop_back();
    }
    state.nets.insert(state.nets.begin(), std::move(created));
    return state.nets.front();
}

// The net's input from the colour picture: its planes as floats in 0...255 (both models
// were trained with no mean subtracted), each plane converted straight into the blob.
// blobFromImage does the same through a float copy of the whole picture, alive beside
// the blob (2.7 MB at 640x352). One split into the three planes costs a third of taking
// each channel out on its own (0.3 against 1.0 ms at 640x352), for the same floats.
// `blob` holds 3 planes of the colour picture's size.
void fillBlob(allspark_face_net &state, float *blob) {
    const cv::Mat &colour = state.colour;
    const size_t planeSize = static_cast<size_t>(colour.rows) * static_cast<size_t>(colour.cols);
    cv::split(colour, state.channels);
    for (int channel = 0; channel < 3; ++channel) {
        state.channels[channel].convertTo(cv::Mat(colour.rows, colour.cols, CV_32F, blob + planeSize * channel), CV_32F);
    }
}

// The region's three planes at net size, in the model's colour order, in `state.colour`.
void fillColour(allspark_face_net &state, const allspark_yuv420_image &image, const allspark_rect &region, int width,
                int height) {
    fillI420(state, image, region, width, height);
    cv::cvtColor(state.i420, state.colour, state.decoder->rgbInput ? cv::COLOR_YUV2RGB_I420 : cv::COLOR_YUV2BGR_I420);
}

bool isInputSize(int32_t width, int32_t height) {
    return width >= 32 && height >= 32 && width % 32 == 0 && height % 32 == 0;
}

bool areThresholds(float score, float overlap) {
    return score > 0.0f && score < 1.0f && overlap > 0.0f && overlap <= 1.0f;
}

// Reads the net's outputs for `region` searched at `input`: boxes in the image's pixels,
// overlapping ones merged.
allspark_status decodeOutputs(allspark_face_net &net, const std::vector<cv::Mat> &outputs,
                              const allspark_yuv420_image &image, const allspark_rect &region, cv::Size input,
                              float scoreThreshold, float overlapThreshold, allspark_rect *boxes, int32_t capacity,
                              int32_t *count) {
    if (!net.decoder->hasShape(outputs, input)) {
        allspark::remember(&net.lastError, "the model's outputs do not have the shape its decoder reads");
        return ALLSPARK_ERROR_OPENCV;
    }
    net.found.clear();
    net.decoder->decode(outputs, input, scoreThreshold, net.found);
    const double toRegionX = static_cast<double>(region.width) / input.width;
    const double toRegionY = static_cast<double>(region.height) / input.height;
    net.candidates.clear();
    net.scores.clear();
    for (const allspark::InputBox &box : net.found) {
        const int x0 = std::max(0, static_cast<int>(std::floor(box.left * toRegionX + region.x)));
        const int y0 = std::max(0, static_cast<int>(std::floor(box.top * toRegionY + region.y)));
        const int x1 = std::min(image.width, static_cast<int>(std::ceil(box.right * toRegionX + region.x)));
        const int y1 = std::min(image.height, static_cast<int>(std::ceil(box.bottom * toRegionY + region.y)));
        if (x1 > x0 && y1 > y0) {
            net.candidates.emplace_back(x0, y0, x1 - x0, y1 - y0);
            net.scores.push_back(box.score);
        }
    }
    cv::dnn::NMSBoxes(net.candidates, net.scores, scoreThreshold, overlapThreshold, net.kept);
    const size_t written = std::min(net.kept.size(), static_cast<size_t>(capacity));
    for (size_t i = 0; i < written; ++i) {
        const cv::Rect &box = net.candidates[static_cast<size_t>(net.kept[i])];
        boxes[i] = allspark_rect{box.x, box.y, box.width, box.height};
    }
    *count = static_cast<int32_t>(written);
    return written < net.kept.size() ? ALLSPARK_ERROR_TOO_MANY_OBJECTS : ALLSPARK_OK;
}

void runNet(allspark_face_net &state) {
    const int shape[] = {1, 3, state.colour.rows, state.colour.cols};
    state.blob.create(4, shape, CV_32F);
    fillBlob(state, state.blob.ptr<float>());
    allspark::SizedNet &sized = netFor(state, state.colour.size());
    sized.net.setInput(state.blob);
    sized.net.forward(state.outputs, state.outputNames);
}

} // namespace

allspark_status allspark_face_net_create(const char *model_path, allspark_face_net_kind kind,
                                         allspark_face_net **net) {
    if (net == nullptr || model_path == nullptr ||
        (kind != ALLSPARK_FACE_NET_CENTERFACE && kind != ALLSPARK_FACE_NET_YUNET)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *net = nullptr;
    std::string ignored;
    const allspark_status status = allspark::guarded(&ignored, [&]() {
        auto created = std::make_unique<allspark_face_net>();
        created->decoder = kind == ALLSPARK_FACE_NET_YUNET ? &allspark::yuNetDecoder : &allspark::centerFaceDecoder;
        created->modelPath = model_path;
        // One pass over a small blank picture proves the file is the model asked for, not just ONNX.
        constexpr int probe = 64;
        created->colour = cv::Mat::zeros(probe, probe, CV_8UC3);
        runNet(*created);
        if (!created->decoder->hasShape(created->outputs, cv::Size(probe, probe))) {
            return ALLSPARK_ERROR_MODEL_LOAD;
        }
        created->nets.clear();
        *net = created.release();
        return ALLSPARK_OK;
    });
    // An ONNX parser error means the file is not a usable model, whatever OpenCV called it.
    return status == ALLSPARK_ERROR_OPENCV ? ALLSPARK_ERROR_MODEL_LOAD : status;
}

void allspark_face_net_free(allspark_face_net *net) {
    delete net;
}

allspark_status allspark_face_net_detect(allspark_face_net *net, allspark_yuv420_image image,
                                         allspark_rect region, int32_t input_width,
                                         int32_t input_height, float score_threshold,
                                         float overlap_threshold, allspark_rect *boxes,
                                         int32_t capacity, int32_t *count) {
    if (net == nullptr || !allspark::isValidOutput(boxes, capacity, count)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (!isValid(image) || !isUsable(region, image) || !isInputSize(input_width, input_height) ||
        !areThresholds(score_threshold, overlap_threshold)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(&net->lastError, [&]() {
        fillColour(*net, image, region, input_width, input_height);
        runNet(*net);
        return decodeOutputs(*net, net->outputs, image, region, cv::Size(input_width, input_height), score_threshold,
                             overlap_threshold, boxes, capacity, count);
    });
}

allspark_status allspark_face_net_prepare(allspark_face_net *net, allspark_yuv420_image image, allspark_rect region,
                                          int32_t input_width, int32_t input_height, float *input) {
    if (net == nullptr || input == nullptr || !isValid(image) || !isUsable(region, image) ||
        !isInputSize(input_width, input_height)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(&net->lastError, [&]() {
        fillColour(*net, image, region, input_width, input_height);
        fillBlob(*net, input);
        return ALLSPARK_OK;
    });
}

int32_t allspark_face_net_output_count(const allspark_face_net *net) {
    return net == nullptr ? 0 : static_cast<int32_t>(net->outputNames.size());
}

const char *allspark_face_net_output_name(const allspark_face_net *net, int32_t index) {
    if (net == nullptr || index < 0 || static_cast<size_t>(index) >= net->outputNames.size()) {
        return nullptr;
    }
    return net->outputNames[static_cast<size_t>(index)].c_str();
}

allspark_status allspark_face_net_decode(allspark_face_net *net, const float *const *outputs, const size_t *lengths,
                                         int32_t output_count, allspark_yuv420_image image, allspark_rect region,
                                         int32_t input_width, int32_t input_height, float score_threshold,
                                         float overlap_threshold, allspark_rect *boxes, int32_t capacity,
                                         int32_t *count) {
    if (net == nullptr || !allspark::isValidOutput(boxes, capacity, count)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (outputs == nullptr || lengths == nullptr || output_count != allspark_face_net_output_count(net) ||
        !isValid(image) || !isUsable(region, image) || !isInputSize(input_width, input_height) ||
        !areThresholds(score_threshold, overlap_threshold)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(&net->lastError, [&]() {
        // Headers over the caller's arrays: nothing is copied, and the vector keeps its size.
        net->borrowed.resize(static_cast<size_t>(output_count));
        for (int32_t i = 0; i < output_count; ++i) {
            if (outputs[i] == nullptr || lengths[i] > static_cast<size_t>(INT32_MAX)) {
                allspark::remember(&net->lastError, "an output is missing or too large");
                return ALLSPARK_ERROR_INVALID_ARGUMENT;
            }
            net->borrowed[static_cast<size_t>(i)] =
                cv::Mat(1, static_cast<int>(lengths[i]), CV_32F, const_cast<float *>(outputs[i]));
        }
        return decodeOutputs(*net, net->borrowed, image, region, cv::Size(input_width, input_height), score_threshold,
                             overlap_threshold, boxes, capacity, count);
    });
}

const char *allspark_face_net_last_error(const allspark_face_net *net) {
    return net == nullptr ? "" : net->lastError.c_str();
}
