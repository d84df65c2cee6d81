#include "shim_internal.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <memory>

namespace allspark {

void scaleInto(const cv::Mat &from, cv::Mat to, cv::Mat (&scratch)[2], bool areaFinish) {
    cv::Mat current = from;
    int next = 0;
    while (current.cols >= 2 * to.cols && current.rows >= 2 * to.rows) {
        const cv::Size half(current.cols / 2, current.rows / 2);
        cv::Mat &buffer = scratch[next];
        if (buffer.cols < half.width || buffer.rows < half.height) {
            buffer.create(std::max(buffer.rows, half.height), std::max(buffer.cols, half.width), CV_8UC1);
        }
        cv::Mat halved = buffer(cv::Rect(0, 0, half.width, half.height));
        cv::resize(current, halved, half, 0, 0, cv::INTER_AREA);
        current = halved;
        next = 1 - next;
    }
    if (current.size() == to.size()) {
        current.copyTo(to);
    } else {
        const bool shrinking = to.cols <= current.cols && to.rows <= current.rows;
        // Within 10% of the size each way, area averaging and a bilinear finish weigh the same
        // two source pixels to within a few hundredths, and OpenCV's general area path costs
        // four times as much: 640x360 to 640x352, every whole search of a 720p frame, took
        // 1.8 ms of its 9 (bench/history 21).
        const bool nearSize = current.cols * 10 < to.cols * 11 && current.rows * 10 < to.rows * 11;
        cv::resize(current, to, to.size(), 0, 0, areaFinish && shrinking && !nearSize ? cv::INTER_AREA : cv::INTER_LINEAR);
    }
}

} // namespace allspark

struct allspark_scaler {
    bool areaFinish = true;
    cv::Mat scratch[2];
};

allspark_status allspark_scaler_create(int32_t area_finish, allspark_scaler **scaler) {
    if (scaler == nullptr) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *scaler = nullptr;
    return allspark::guarded(nullptr, [&]() {
        auto created = std::make_unique<allspark_scaler>();
        created->areaFinish = area_finish != 0;
        *scaler = created.release();
        return ALLSPARK_OK;
    });
}

void allspark_scaler_free(allspark_scaler *scaler) {
    delete scaler;
}

allspark_status allspark_scaler_resize(allspark_scaler *scaler, allspark_grey_image source,
                                       uint8_t *destination, int32_t destination_width,
                                       int32_t destination_height, int32_t destination_stride) {
    const allspark_grey_image target{destination, destination_width, destination_height,
                                     destination_stride};
    if (scaler == nullptr || !allspark::isValid(source) || !allspark::isValid(target)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(nullptr, [&]() {
        cv::Mat to = allspark::borrow(target);
        allspark::scaleInto(allspark::borrow(source), to, scaler->scratch, scaler->areaFinish);
        // The target is the caller's buffer at its own size: nothing above reallocates it.
        return to.data == destination ? ALLSPARK_OK : ALLSPARK_ERROR_INVALID_ARGUMENT;
    });
}
