#ifndef ALLSPARK_OPENCV_H
#define ALLSPARK_OPENCV_H

/*
 * A thin C API over OpenCV's object detectors and optical flow, for Swift.
 *
 * No policy lives here: the caller decides which cascades to run, at what size and with
 * what parameters, and what to do with the boxes. Every function catches all C++
 * exceptions and reports them as a status. Images are 8-bit grey planes borrowed for the
 * duration of one call; results go into caller-provided buffers. A detector is not safe
 * to use from two threads at once.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum allspark_status {
    ALLSPARK_OK = 0,
    /* A size, stride, pointer or parameter is out of range. */
    ALLSPARK_ERROR_INVALID_ARGUMENT = 1,
    /* A cascade file is missing, unreadable or not a cascade. */
    ALLSPARK_ERROR_CASCADE_LOAD = 2,
    /* More objects were found than the caller's buffer holds; the buffer is filled. */
    ALLSPARK_ERROR_TOO_MANY_OBJECTS = 3,
    /* OpenCV raised an exception (cv::Exception). */
    ALLSPARK_ERROR_OPENCV = 4,
    ALLSPARK_ERROR_OUT_OF_MEMORY = 5,
    /* Any other C++ exception. */
    ALLSPARK_ERROR_UNKNOWN = 6,
    /* A model file is missing, unreadable or not the expected network. */
    ALLSPARK_ERROR_MODEL_LOAD = 7
} allspark_status;

/* An axis-aligned box in the pixel coordinates of the image that was searched. */
typedef struct allspark_rect {
    int32_t x;
    int32_t y;
    int32_t width;
    int32_t height;
} allspark_rect;

/* A borrowed 8-bit grey plane: `stride` bytes from one row to the next. */
typedef struct allspark_grey_image {
    const uint8_t *pixels;
    int32_t width;
    int32_t height;
    int32_t stride;
} allspark_grey_image;

/* A borrowed YUV 4:2:0 picture (three planes, chroma at half width and height). */
typedef struct allspark_yuv420_image {
    const uint8_t *y;
    const uint8_t *u;
    const uint8_t *v;
    int32_t width;
    int32_t height;
    int32_t y_stride;
    int32_t u_stride;
    int32_t v_stride;
} allspark_yuv420_image;

/* A point in pixel coordinates of a grey image. */
typedef struct allspark_point {
    float x;
    float y;
} allspark_point;

/* cv::CascadeClassifier::detectMultiScale parameters; a max size of 0 means no limit. */
typedef struct allspark_cascade_params {
    double scale_factor;
    int32_t min_neighbors;
    int32_t min_width;
    int32_t min_height;
    int32_t max_width;
    int32_t max_height;
} allspark_cascade_params;

/* A short static English description of a status; never NULL. */
const char *allspark_status_description(allspark_status status);

/* The OpenCV version the shim was built with ("4.6.0"). */
const char *allspark_opencv_version(void);

/*
 * A grey picture scaler: its scratch for the halving steps (see allspark_scaler_resize)
 * only grows, so resizing to the same sizes allocates nothing after the first time.
 * `area_finish` non-zero: the last step averages areas, as a direct area resize would (for
 * detectors); zero: it is bilinear, cheaper again (for tracking thumbnails).
 */
typedef struct allspark_scaler allspark_scaler;

allspark_status allspark_scaler_create(int32_t area_finish, allspark_scaler **scaler);
void allspark_scaler_free(allspark_scaler *scaler);

/*
 * Resizes `source` into the caller's `destination` buffer, whose size says the target size.
 * Shrinking halves by area averaging while at least twice too large each way (OpenCV's exact
 * 2:1 path), then ends as the scaler was made to.
 */
allspark_status allspark_scaler_resize(allspark_scaler *scaler,
                                       allspark_grey_image source,
                                       uint8_t *destination,
                                       int32_t destination_width,
                                       int32_t destination_height,
                                       int32_t destination_stride);

/* ---- Haar/LBP cascade detector ---- */

typedef struct allspark_cascade_detector allspark_cascade_detector;

/*
 * Loads `cascade_count` cascade files, in order; cascade i is later chosen by index i.
 * On failure no detector is returned and `*failed_index` (if not NULL) names the path
 * that failed, or -1 when no particular path is to blame.
 */
allspark_status allspark_cascade_detector_create(const char *const *cascade_paths,
                                                 int32_t cascade_count,
                                                 allspark_cascade_detector **detector,
                                                 int32_t *failed_index);

/* Frees a detector from allspark_cascade_detector_create; NULL is allowed. */
void allspark_cascade_detector_free(allspark_cascade_detector *detector);

/*
 * Runs one cascade over `image`. With `mirrored` non-zero the image is flipped left to
 * right first (into a buffer the detector reuses) and the boxes are mapped back, so a
 * one-sided cascade such as profileface finds the other side too.
 * Writes up to `capacity` boxes and sets `*count` to the number written; if more were
 * found it returns ALLSPARK_ERROR_TOO_MANY_OBJECTS.
 */
allspark_status allspark_cascade_detector_detect(allspark_cascade_detector *detector,
                                                 int32_t cascade_index,
                                                 int32_t mirrored,
                                                 allspark_grey_image image,
                                                 allspark_cascade_params params,
                                                 allspark_rect *boxes,
                                                 int32_t capacity,
                                                 int32_t *count);

/*
 * The message of the last exception this detector caught, or "" if none. Valid until the
 * next call on the same detector.
 */
const char *allspark_cascade_detector_last_error(const allspark_cascade_detector *detector);

/* ---- HOG people detector (OpenCV's default 64x128 pedestrian model) ---- */

typedef struct allspark_people_detector allspark_people_detector;

allspark_status allspark_people_detector_create(allspark_people_detector **detector);

/* Frees a detector from allspark_people_detector_create; NULL is allowed. */
void allspark_people_detector_free(allspark_people_detector *detector);

/*
 * Finds upright people at least 64x128 px in `image` (cv::HOGDescriptor::detectMultiScale
 * with `hit_threshold` and `scale_factor`; grouped boxes). Same buffer rules as
 * allspark_cascade_detector_detect.
 */
allspark_status allspark_people_detector_detect(allspark_people_detector *detector,
                                                allspark_grey_image image,
                                                double hit_threshold,
                                                double scale_factor,
                                                allspark_rect *boxes,
                                                int32_t capacity,
                                                int32_t *count);

/* As allspark_cascade_detector_last_error. */
const char *allspark_people_detector_last_error(const allspark_people_detector *detector);

/* ---- Face nets: CenterFace or YuNet (ONNX models through OpenCV's dnn module) ---- */

typedef struct allspark_face_net allspark_face_net;

/* Which model a face net file holds; each has its own input colour order and outputs. */
typedef enum allspark_face_net_kind {
    /* CenterFace: RGB input; heatmap, scales, offsets, landmarks at a quarter of the input size. */
    ALLSPARK_FACE_NET_CENTERFACE = 0,
    /* YuNet (2023mar): BGR input; class, objectness, box and landmark rows at strides 8, 16, 32. */
    ALLSPARK_FACE_NET_YUNET = 1
} allspark_face_net_kind;

/*
 * Loads an ONNX model of `kind` (inputs: a blob whose sides are multiples of 32) and runs
 * it once on a small blank picture. Returns ALLSPARK_ERROR_MODEL_LOAD when the file
 * cannot be read as such a model.
 */
allspark_status allspark_face_net_create(const char *model_path, allspark_face_net_kind kind, allspark_face_net **net);

/* Frees a net from allspark_face_net_create; NULL is allowed. */
void allspark_face_net_free(allspark_face_net *net);

/*
 * Searches `region` of `image` (the whole picture for the whole frame) for faces: the
 * region is scaled to `input_width` x `input_height` (multiples of 32), converted to the
 * model's colour order and passed through the net. The region may reach past the picture's edges (at least
 * 2x2 pixels of it inside, at most 3 times the picture's size): the part outside is the
 * inside part's mirror image, so a face cut by the edge is searched with its reflection. Faces scored above
 * `score_threshold` are kept, overlapping ones merged (non-maximum suppression at IoU
 * `overlap_threshold`). Boxes are in `image`'s pixel coordinates. Buffers are reused
 * between calls of the same size. Same output buffer rules as the cascade detector.
 */
allspark_status allspark_face_net_detect(allspark_face_net *net,
                                         allspark_yuv420_image image,
                                         allspark_rect region,
                                         int32_t input_width,
                                         int32_t input_height,
                                         float score_threshold,
                                         float overlap_threshold,
                                         allspark_rect *boxes,
                                         int32_t capacity,
                                         int32_t *count);

/*
 * The first half of allspark_face_net_detect, for another engine to run the net: writes
 * the net's input for `region` (3 planes of `input_width` x `input_height` floats, in the
 * model's colour order) into `input`.
 */
allspark_status allspark_face_net_prepare(allspark_face_net *net,
                                          allspark_yuv420_image image,
                                          allspark_rect region,
                                          int32_t input_width,
                                          int32_t input_height,
                                          float *input);

/* The model's outputs in the order allspark_face_net_decode reads them, by name. */
int32_t allspark_face_net_output_count(const allspark_face_net *net);
const char *allspark_face_net_output_name(const allspark_face_net *net, int32_t index);

/*
 * The second half of allspark_face_net_detect: reads `output_count` outputs (`lengths[i]`
 * floats at `outputs[i]`, in allspark_face_net_output_name's order) of the input that
 * allspark_face_net_prepare made for the same region and size. Same rules and results as
 * allspark_face_net_detect.
 */
allspark_status allspark_face_net_decode(allspark_face_net *net,
                                         const float *const *outputs,
                                         const size_t *lengths,
                                         int32_t output_count,
                                         allspark_yuv420_image image,
                                         allspark_rect region,
                                         int32_t input_width,
                                         int32_t input_height,
                                         float score_threshold,
                                         float overlap_threshold,
                                         allspark_rect *boxes,
                                         int32_t capacity,
                                         int32_t *count);

/* As allspark_cascade_detector_last_error. */
const char *allspark_face_net_last_error(const allspark_face_net *net);

/* Threads OpenCV may use for one call (cv::getNumThreads): 1, set once as the program loads
   (threads.cpp), -1 if OpenCV cannot say. */
int32_t allspark_opencv_threads(void);

/* ---- Sparse optical flow (pyramidal Lucas-Kanade, OpenCV's video module) ---- */

/* An image pyramid of one grey picture, built once and used for every track through it. */
typedef struct allspark_flow_pyramid allspark_flow_pyramid;

allspark_status allspark_flow_pyramid_create(allspark_flow_pyramid **pyramid);

/* Frees a pyramid from allspark_flow_pyramid_create; NULL is allowed. */
void allspark_flow_pyramid_free(allspark_flow_pyramid *pyramid);

/*
 * Copies `image` into the pyramid with `levels` levels above it, for a search window of
 * `window` px. Storage is reused when the size stays the same.
 */
allspark_status allspark_flow_pyramid_build(allspark_flow_pyramid *pyramid,
                                            allspark_grey_image image,
                                            int32_t window,
                                            int32_t levels);

/*
 * Follows `count` points from the picture in `from` to the one in `to` (both built with
 * the same window and levels). `found[i]` is 1 when point i was followed, with its new
 * position in `moved[i]`, and 0 when it was lost. Keeps its scratch in `from`.
 */
allspark_status allspark_flow_track(allspark_flow_pyramid *from,
                                    const allspark_flow_pyramid *to,
                                    const allspark_point *points,
                                    allspark_point *moved,
                                    uint8_t *found,
                                    int32_t count);

#ifdef __cplusplus
}
#endif

#endif
