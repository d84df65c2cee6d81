#ifndef ALLSPARK_V4L2_H
#define ALLSPARK_V4L2_H

#include <stdint.h>

/* ioctl is variadic and cannot be called from Swift; these wrap the queries the
 * `devices` command and the camera format choice need. Each returns 0 on success and -1 (errno set) otherwise. */

/* VIDIOC_QUERYCAP: card name, driver name, bus info (stable across renumbering, e.g.
 * "usb-0000:00:14.0-1" or "platform:vivid-000") and the device's capabilities. */
int allspark_v4l2_query(
    int fd, char *card, int card_size, char *driver, int driver_size, char *bus_info, int bus_info_size, uint32_t *capabilities);

/* VIDIOC_ENUM_FMT for video capture: the index-th pixel format. */
int allspark_v4l2_format(int fd, uint32_t index, uint32_t *pixel_format, char *description, int description_size);

/* The sizes one VIDIOC_ENUM_FRAMESIZES entry covers: a discrete size has min = max and
 * steps of 1; a continuous or stepwise range its bounds and steps. */
struct allspark_v4l2_size_range {
    uint32_t min_width, max_width, width_step;
    uint32_t min_height, max_height, height_step;
};

/* VIDIOC_ENUM_FRAMESIZES: the index-th size entry of a format. */
int allspark_v4l2_frame_size(int fd, uint32_t pixel_format, uint32_t index, struct allspark_v4l2_size_range *range);

/* VIDIOC_ENUM_FRAMEINTERVALS: the index-th frame interval of a format at a size, in seconds
 * as numerator/denominator (a discrete interval, or the shortest of a range). */
int allspark_v4l2_frame_interval(
    int fd, uint32_t pixel_format, uint32_t width, uint32_t height, uint32_t index, uint32_t *numerator, uint32_t *denominator);

/* V4L2_CAP_VIDEO_CAPTURE, for filtering out metadata nodes. */
uint32_t allspark_v4l2_capture_capability(void);

#endif
