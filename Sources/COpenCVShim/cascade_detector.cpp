#include "shim_internal.hpp"

#include <opencv2/objdetect.hpp>

#include <memory>

struct allspark_cascade_detector {
    std::vector<cv::CascadeClassifier> cascades;
    // Reused between calls so that a mirrored search does not allocate once sizes settle.
    cv::Mat mirrored;
    std::vector<cv::Rect> found;
    std::string lastError;
};

allspark_status allspark_cascade_detector_create(const char *const *cascade_paths,
                                                 int32_t cascade_count,
                                                 allspark_cascade_detector **detector,
                                                 int32_t *failed_index) {
    int32_t current = -1;
    if (failed_index != nullptr) {
        *failed_index = -1;
    }
    if (detector == nullptr || cascade_paths == nullptr || cascade_count <= 0) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *detector = nullptr;
    const allspark_status status = allspark::guarded(nullptr, [&]() {
        auto created = std::make_unique<allspark_cascade_detector>();
        created->cascades.resize(static_cast<size_t>(cascade_count));
        for (current = 0; current < cascade_count; ++current) {
            const char *path = cascade_paths[current];
            if (path == nullptr || !created->cascades[current].load(path) ||
                created->cascades[current].empty()) {
                return ALLSPARK_ERROR_CASCADE_LOAD;
            }
        }
        current = -1;
        *detector = created.release();
        return ALLSPARK_OK;
    });
    if (status != ALLSPARK_OK && failed_index != nullptr) {
        *failed_index = current;
    }
    return status;
}

void allspark_cascade_detector_free(allspark_cascade_detector *detector) {
    delete detector;
}

allspark_status allspark_cascade_detector_detect(allspark_cascade_detector *detector,
                                                 int32_t cascade_index, int32_t mirrored,
                                                 allspark_grey_image image,
                                                 allspark_cascade_params params,
                                                 allspark_rect *boxes, int32_t capacity,
                                                 int32_t *count) {
    if (detector == nullptr || !allspark::isValidOutput(boxes, capacity, count)) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *count = 0;
    if (cascade_index < 0 || static_cast<size_t>(cascade_index) >= detector->cascades.size() ||
        !allspark::isValid(image) || !(params.scale_factor > 1.0) || params.min_neighbors < 0 ||
        params.min_width < 0 || params.min_height < 0 || params.max_width < 0 ||
        params.max_height < 0) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(&detector->lastError, [&]() {
        const cv::Mat original = allspark::borrow(image);
        if (mirrored != 0) {
            cv::flip(original, detector->mirrored, 1);
        }
        const cv::Mat &searched = mirrored != 0 ? detector->mirrored : original;
        detector->cascades[static_cast<size_t>(cascade_index)].detectMultiScale(
            searched, detector->found, params.scale_factor, params.min_neighbors, 0,
            cv::Size(params.min_width, params.min_height),
            cv::Size(params.max_width, params.max_height));
        return allspark::copyBoxes(detector->found, mirrored != 0 ? image.width : 0, boxes,
                                   capacity, count);
    });
}

const char *allspark_cascade_detector_last_error(const allspark_cascade_detector *detector) {
    return detector == nullptr ? "" : detector->lastError.c_str();
}
