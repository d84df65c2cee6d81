#include "allspark_v4l2.h"

#include <linux/videodev2.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdio.h>

int allspark_v4l2_query(int fd, char *card, int card_size, char *driver, int driver_size, uint32_t *capabilities) {
    struct v4l2_capability caps;
    memset(&caps, 0, sizeof caps);
    if (ioctl(fd, VIDIOC_QUERYCAP, &caps) < 0) return -1;
    snprintf(card, (size_t)card_size, "%s", (const char *)caps.card);
    snprintf(driver, (size_t)driver_size, "%s", (const char *)caps.driver);
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

int allspark_v4l2_frame_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *width, uint32_t *height) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = pixel_format;
    if (ioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) < 0) return -1;
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        *width = size.discrete.width;
        *height = size.discrete.height;
    } else {
        *width = size.stepwise.max_width;
        *height = size.stepwise.max_height;
    }
    return 0;
}

uint32_t allspark_v4l2_capture_capability(void) { return V4L2_CAP_VIDEO_CAPTURE; }
