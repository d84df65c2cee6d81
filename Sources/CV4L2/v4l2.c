#include "allspark_v4l2.h"

#include <linux/videodev2.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdio.h>

int allspark_v4l2_query(
    int fd, char *card, int card_size, char *driver, int driver_size, char *bus_info, int bus_info_size, uint32_t *capabilities) {
    struct v4l2_capability caps;
    memset(&caps, 0, sizeof caps);
    if (ioctl(fd, VIDIOC_QUERYCAP, &caps) < 0) return -1;
    snprintf(card, (size_t)card_size, "%s", (const char *)caps.card);
    snprintf(driver, (size_t)driver_size, "%s", (const char *)caps.driver);
    snprintf(bus_info, (size_t)bus_info_size, "%s", (const char *)caps.bus_info);
    *capabilities = (caps.capabilities & V4L2_CAP_DEVICE_CAPS) ? caps.device_caps : caps.capabilities;
    return 0;
}

int allspark_v4l2_format(int fd, uint32_t index, uint32_t *pixel_format, char *description, int description_size) {
    struct v4l2_fmtdesc format;
    memset(&format, 0, sizeof format);
    format.index = index;
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (ioctl(fd, VIDIOC_ENUM_FMT, &format) < 0) return -1;
    *pixel_format = format.pixelformat;
    snprintf(description, (size_t)description_size, "%s", (const char *)format.description);
    return 0;
}

int allspark_v4l2_frame_size(int fd, uint32_t pixel_format, uint32_t index, struct allspark_v4l2_size_range *range) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = pixel_format;
    if (ioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) < 0) return -1;
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        range->min_width = range->max_width = size.discrete.width;
        range->min_height = range->max_height = size.discrete.height;
        range->width_step = range->height_step = 1;
    } else {
        range->min_width = size.stepwise.min_width;
        range->max_width = size.stepwise.max_width;
        range->min_height = size.stepwise.min_height;
        range->max_height = size.stepwise.max_height;
        /* A continuous range reports steps of 1. */
        range->width_step = size.stepwise.step_width ? size.stepwise.step_width : 1;
        range->height_step = size.stepwise.step_height ? size.stepwise.step_height : 1;
    }
    return 0;
}

int allspark_v4l2_frame_interval(
    int fd, uint32_t pixel_format, uint32_t width, uint32_t height, uint32_t index, uint32_t *numerator, uint32_t *denominator) {
    struct v4l2_frmivalenum interval;
    memset(&interval, 0, sizeof interval);
    interval.index = index;
    interval.pixel_format = pixel_format;
    interval.width = width;
    interval.height = height;
    if (ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &interval) < 0) return -1;
    if (interval.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
        *numerator = interval.discrete.numerator;
        *denominator = interval.discrete.denominator;
    } else {
        *numerator = interval.stepwise.min.numerator;
        *denominator = interval.stepwise.min.denominator;
    }
    return 0;
}

uint32_t allspark_v4l2_capture_capability(void) { return V4L2_CAP_VIDEO_CAPTURE; }
