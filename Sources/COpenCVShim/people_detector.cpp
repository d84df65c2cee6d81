#include "shim_internal.hpp"

#include <opencv2/objdetect.hpp>

#include <memory>

struct allspark_people_detector {
    cv::HOGDescriptor hog;
    std::vector<cv::Rect> found;
    std::string lastError;
};

allspark_status allspark_people_detector_create(allspark_people_detector **detector) {
    if (detector == nullptr) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *detector = nullptr;
    return allspark::guarded(nullptr, [&]() {
        auto created = std::make_unique<allspark_people_detector>();
        created->hog.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        *detector = created.release();
        return ALLSPARK_OK;
    });
}

void allspark_people_detector_free(allspark_people_detector *detector) {
    delete detector;
}

allspark_status allspark_people_detector_detect(allspark_people_detector *detector,
                                                allspark_grey_image image, double hit_threshold,
                                                double scale_factor, allspark_rect *boxes,
                                                int32_t capacity, int32_t *count) {
    if (detector == nullptr || !allspark::isValidOutput(boxes, capacity, count)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (!allspark::isValid(image) || !(scale_factor > 1.0)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(&detector->lastError, [&]() {
        const cv::Size window = detector->hog.winSize;
        if (image.width < window.width || image.height < window.height) {
            // Smaller than one detection window: there is nothing OpenCV could find.
            detector->found.clear();
        } else {
            detector->hog.detectMultiScale(allspark::borrow(image), detector->found, hit_threshold,
                                           cv::Size(8, 8), cv::Size(), scale_factor);
        }
        return allspark::copyBoxes(detector->found, 0, boxes, capacity, count);
    });
}

const char *allspark_people_detector_last_error(const allspark_people_detector *detector) {
    return detector == nullptr ? "" : detector->lastError.c_str();
}
