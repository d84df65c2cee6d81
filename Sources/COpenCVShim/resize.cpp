#include "shim_internal.hpp"

#include <opencv2/imgproc.hpp>

allspark_status allspark_resize_grey(allspark_grey_image source, uint8_t *destination,
                                     int32_t destination_width, int32_t destination_height,
                                     int32_t destination_stride) {
    const allspark_grey_image target{destination, destination_width, destination_height,
                                     destination_stride};
    if (!allspark::isValid(source) || !allspark::isValid(target)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(nullptr, [&]() {
        const cv::Mat from = allspark::borrow(source);
        cv::Mat to = allspark::borrow(target);
        cv::resize(from, to, to.size(), 0, 0, cv::INTER_AREA);
        // resize reallocates only if the target's size or type were wrong; then the result
        // would not be in the caller's buffer.
        return to.data == destination ? ALLSPARK_OK : ALLSPARK_ERROR_INVALID_ARGUMENT;
    });
}
