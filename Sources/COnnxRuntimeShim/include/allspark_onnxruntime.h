/*
 * A small C API over ONNX Runtime's C API, for one float input of shape 1x3xHxW and
 * float outputs. The library is opened with dlopen, so a node without it still starts
 * (and searches with OpenCV's dnn instead). Swift owns every object made here and frees
 * it through the matching _free call.
 */
#ifndef ALLSPARK_ONNXRUNTIME_H
#define ALLSPARK_ONNXRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A loaded libonnxruntime: its API table and one environment (logging, no global threads).
   It lives as long as the process: ONNX Runtime does not support being unloaded. */
typedef struct allspark_ort_runtime allspark_ort_runtime;

/* One model loaded for inference, with its input and output buffers per input size. */
typedef struct allspark_ort_session allspark_ort_session;

/*
 * Opens the library at `path` (a file, or a soname for the loader's search path) and its
 * C API of the version this shim was built with. NULL on failure, with the reason in
 * `error` (dlopen's message, a missing symbol, a library too old for this API).
 */
allspark_ort_runtime *allspark_ort_runtime_load(const char *path, char *error, size_t error_size);

/* The library's own version string ("1.21.1"). */
const char *allspark_ort_runtime_version(const allspark_ort_runtime *runtime);

/*
 * Loads the ONNX model in `model` (`model_size` bytes, read only during the call) to run
 * on the calling thread alone: one intra-op thread, no thread pool, no spinning,
 * sequential execution, all graph optimisations.
 * The model must have one float input of shape [1, 3, H, W] (H and W free); `output_names`
 * (copied) are read in that order by allspark_ort_session_run. NULL on failure, with the
 * reason in `error`.
 */
allspark_ort_session *allspark_ort_session_create(allspark_ort_runtime *runtime, const void *model,
                                                  size_t model_size, const char *const *output_names, int32_t output_count,
                                                  char *error, size_t error_size);

/* Frees a session from allspark_ort_session_create; NULL is allowed. */
void allspark_ort_session_free(allspark_ort_session *session);

/*
 * The input buffer (3 * width * height floats, planar) for the next run at this size.
 * The last few sizes keep their buffers and tensors, so a steady size allocates nothing.
 * NULL on failure, with the reason in `error`.
 */
float *allspark_ort_session_input(allspark_ort_session *session, int32_t width, int32_t height, char *error,
                                  size_t error_size);

/*
 * Runs the model on the input of the size last asked for. On success `outputs[i]` points
 * at output i's floats and `lengths[i]` counts them (both arrays hold `output_count`
 * entries), valid until the next call. Nonzero on failure, with the reason in `error`.
 */
int32_t allspark_ort_session_run(allspark_ort_session *session, const float **outputs, size_t *lengths,
                                 char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
