#include "shim_internal.hpp"

#include <opencv2/video/tracking.hpp>

#include <memory>

struct allspark_flow_pyramid {
    std::vector<cv::Mat> levels;
    cv::Size window;
    int32_t levelCount = 0;
    // Scratch for tracks that start from this picture, reused between calls.
    std::vector<cv::Point2f> from;
    std::vector<cv::Point2f> to;
    std::vector<uint8_t> status;
    std::vector<float> error;
};

allspark_status allspark_flow_pyramid_create(allspark_flow_pyramid **pyramid) {
    if (pyramid == nullptr) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    *pyramid = nullptr;
    return allspark::guarded(nullptr, [&]() {
        *pyramid = std::make_unique<allspark_flow_pyramid>().release();
        return ALLSPARK_OK;
    });
}

void allspark_flow_pyramid_free(allspark_flow_pyramid *pyramid) {
    delete pyramid;
}

allspark_status allspark_flow_pyramid_build(allspark_flow_pyramid *pyramid, allspark_grey_image image,
                                            int32_t window, int32_t levels) {
    if (pyramid == nullptr || !allspark::isValid(image) || window < 3 || levels < 0 || levels > 8) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    return allspark::guarded(nullptr, [&]() {
        pyramid->window = cv::Size(window, window);
        // Not reusing the input: the caller's buffer has no border and is overwritten later.
        // Derivatives are computed here once per picture, not again by every track through it.
        pyramid->levelCount = cv::buildOpticalFlowPyramid(allspark::borrow(image), pyramid->levels,
                                                          pyramid->window, levels, true,
                                                          cv::BORDER_REFLECT_101, cv::BORDER_CONSTANT,
                                                          false);
        return ALLSPARK_OK;
    });
}

allspark_status allspark_flow_track(allspark_flow_pyramid *from, const allspark_flow_pyramid *to,
                                    const allspark_point *points, allspark_point *moved,
                                    uint8_t *found, int32_t count) {
    if (from == nullptr || to == nullptr || count < 0 ||
        (count > 0 && (points == nullptr || moved == nullptr || found == nullptr))) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    if (from->levels.empty() || to->levels.empty() || from->window != to->window ||
        from->levelCount != to->levelCount || from->levels[0].size() != to->levels[0].size()) {
        return ALLSPARK_ERROR_INVALID_ARGUMENT;
    }
    if (count == 0) {
        return ALLSPARK_OK;
    }
    return allspark::guarded(nullptr, [&]() {
        from->from.resize(static_cast<size_t>(count));
        for (int32_t i = 0; i < count; ++i) {
            from->from[static_cast<size_t>(i)] = cv::Point2f(points[i].x, points[i].y);
        }
        const cv::TermCriteria stop(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 20, 0.03);
        cv::calcOpticalFlowPyrLK(from->levels, to->levels, from->from, from->to, from->status,
                                 from->error, from->window, from->levelCount, stop);
        for (int32_t i = 0; i < count; ++i) {
            const size_t index = static_cast<size_t>(i);
            moved[i] = allspark_point{from->to[index].x, from->to[index].y};
            found[i] = from->status[index] != 0 ? 1 : 0;
        }
        return ALLSPARK_OK;
    });
}
