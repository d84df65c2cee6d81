#ifndef ALLSPARK_V4L2_H
#define ALLSPARK_V4L2_H

#include <stdint.h>

/* ioctl is variadic and cannot be called from Swift; these wrap the three queries the
 * `devices` command needs. Each returns 0 on success and -1 (errno set) otherwise. */

/* VIDIOC_QUERYCAP: card name, driver name and the device's capabilities. */
int allspark_v4l2_query(int fd, char *card, int card_size, char *driver, int driver_size, uint32_t *capabilities);

/* VIDIOC_ENUM_FMT for video capture: the index-th pixel format. */
int allspark_v4l2_format(int fd, uint32_t index, uint32_t *pixel_format, char *description, int description_size);

/* VIDIOC_ENUM_FRAMESIZES: the index-th size of a format (discrete, or the maximum of a range). */
int allspark_v4l2_frame_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *width, uint32_t *height);

/* V4L2_CAP_VIDEO_CAPTURE, for filtering out metadata nodes. */
uint32_t allspark_v4l2_capture_capability(void);

#endif
