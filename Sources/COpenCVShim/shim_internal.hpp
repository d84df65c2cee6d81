// Helpers shared by the shim's translation units; not part of the C API.
#ifndef ALLSPARK_SHIM_INTERNAL_HPP
#define ALLSPARK_SHIM_INTERNAL_HPP

#include "allspark_opencv.h"

#include <opencv2/core.hpp>

#include <exception>
#include <new>
#include <string>
#include <vector>

namespace allspark {

// Keeps a message for *_last_error without letting a failed copy escape as an exception.
inline void remember(std::string *lastError, const char *message) noexcept {
    if (lastError == nullptr) {
        return;
    }
    try {
        lastError->assign(message);
    } catch (...) {
        lastError->clear();
    }
}

// Runs `body` and turns any C++ exception into a status, since none may cross into Swift.
template <typename Body>
allspark_status guarded(std::string *lastError, Body &&body) noexcept {
    try {
        if (lastError != nullptr) {
            lastError->clear();
        }
        return body();
    } catch (const cv::Exception &error) {
        remember(lastError, error.what());
        return ALLSPARK_ERROR_OPENCV;
    } catch (const std::bad_alloc &) {
        remember(lastError, "out of memory");
        return ALLSPARK_ERROR_OUT_OF_MEMORY;
    } catch (const std::exception &error) {
        remember(lastError, error.what());
        return ALLSPARK_ERROR_UNKNOWN;
    } catch (...) {
        remember(lastError, "unknown C++ exception");
        return ALLSPARK_ERROR_UNKNOWN;
    }
}

inline bool isValid(const allspark_grey_image &image) noexcept {
    return image.pixels != nullptr && image.width > 0 && image.height > 0 &&
           image.stride >= image.width;
}

// A header over the caller's pixels: no copy. OpenCV only reads detector inputs.
inline cv::Mat borrow(const allspark_grey_image &image) {
    return cv::Mat(image.height, image.width, CV_8UC1, const_cast<uint8_t *>(image.pixels),
                   static_cast<size_t>(image.stride));
}

// Scales `from` into `to` (its size is the target). Shrinking halves by area averaging while
// the picture is at least twice too large each way (OpenCV's exact 2:1 path: a tenth of the
// cost of its general area resize), then finishes by area averaging (`areaFinish`: what a
// detector is given, as a direct area resize would; bilinearly within 10% of the size, where
// the two agree) or bilinearly (cheaper again; under 2:1 every source pixel still counts). `scratch` holds the halved pictures; it only grows, so a
// caller that keeps it allocates nothing once the largest size has been seen.
void scaleInto(const cv::Mat &from, cv::Mat to, cv::Mat (&scratch)[2], bool areaFinish);

inline bool isValidOutput(const allspark_rect *boxes, int32_t capacity, const int32_t *count) noexcept {
    return count != nullptr && capacity >= 0 && (capacity == 0 || boxes != nullptr);
}

// Copies `found` into the caller's buffer; `mirroredWidth` > 0 maps boxes found on a
// left-right flipped image of that width back to the original.
inline allspark_status copyBoxes(const std::vector<cv::Rect> &found, int32_t mirroredWidth,
                                 allspark_rect *boxes, int32_t capacity, int32_t *count) noexcept {
    const size_t written = found.size() < static_cast<size_t>(capacity) ? found.size()
                                                                         : static_cast<size_t>(capacity);
    for (size_t i = 0; i < written; ++i) {
        const cv::Rect &box = found[i];
        const int32_t x = mirroredWidth > 0 ? mirroredWidth - (box.x + box.width) : box.x;
        boxes[i] = allspark_rect{x, box.y, box.width, box.height};
    }
    *count = static_cast<int32_t>(written);
    return written < found.size() ? ALLSPARK_ERROR_TOO_MANY_OBJECTS : ALLSPARK_OK;
}

} // namespace allspark

#endif
