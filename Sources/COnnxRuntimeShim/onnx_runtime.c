#include "allspark_onnxruntime.h"
#include "quiet_stderr.h"

#include <onnxruntime/onnxruntime_c_api.h>

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Input sizes kept ready at once: a live camera uses one or two, a folder of photos several.
enum { kSlotsKept = 4, kMaxOutputs = 16 };

struct allspark_ort_runtime {
    void *library;
    const OrtApi *api;
    OrtEnv *env;
    const char *version;
};

// One input size: its input buffer and tensor, and the output tensors the first run at
// this size made, handed back to every later run so it writes into them.
typedef struct {
    int32_t width;
    int32_t height;
    float *input;
    OrtValue *inputValue;
    OrtValue *outputs[kMaxOutputs];
} size_slot;

struct allspark_ort_session {
    allspark_ort_runtime *runtime;
    OrtSession *session;
    OrtMemoryInfo *memory;
    char *inputName;
    char *outputNames[kMaxOutputs];
    int32_t outputCount;
    // Most recently used first; slots[0] is the one the next run uses.
    size_slot slots[kSlotsKept];
    int32_t slotCount;
};

static void say(char *error, size_t size, const char *format, ...) {
    if (error == NULL || size == 0) {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}

// Takes an OrtStatus: 0 when it is NULL (success), else its message said and it released.
static int failed(const OrtApi *api, OrtStatus *status, const char *doing, char *error, size_t size) {
    if (status == NULL) {
        return 0;
    }
    say(error, size, "%s: %s", doing, api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return 1;
}

allspark_ort_runtime *allspark_ort_runtime_load(const char *path, char *error, size_t error_size) {
    if (path == NULL) {
        say(error, error_size, "no library path");
        return NULL;
    }
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        say(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
        return NULL;
    }
    typedef const OrtApiBase *(*get_api_base)(void);
    get_api_base getBase = (get_api_base)dlsym(library, "OrtGetApiBase");
    const OrtApiBase *base = getBase != NULL ? getBase() : NULL;
    if (base == NULL) {
        say(error, error_size, "%s has no OrtGetApiBase: not ONNX Runtime", path);
        dlclose(library);
        return NULL;
    }
    const OrtApi *api = base->GetApi(ORT_API_VERSION);
    if (api == NULL) {
        say(error, error_size, "ONNX Runtime %s lacks C API version %d", base->GetVersionString(), ORT_API_VERSION);
        dlclose(library);
        return NULL;
    }
    allspark_ort_runtime *runtime = calloc(1, sizeof *runtime);
    if (runtime == NULL) {
        say(error, error_size, "out of memory");
        dlclose(library);
        return NULL;
    }
    runtime->library = library;
    runtime->api = api;
    runtime->version = base->GetVersionString();
    if (failed(api, api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "allspark-node", &runtime->env), "creating its environment",
               error, error_size)) {
        free(runtime);
        dlclose(library);
        return NULL;
    }
    return runtime;
}

const char *allspark_ort_runtime_version(const allspark_ort_runtime *runtime) {
    return runtime == NULL ? "" : runtime->version;
}

static void release_slot(const OrtApi *api, size_slot *slot, int32_t outputCount) {
    for (int32_t i = 0; i < outputCount; ++i) {
        if (slot->outputs[i] != NULL) {
            api->ReleaseValue(slot->outputs[i]);
        }
    }
    if (slot->inputValue != NULL) {
        api->ReleaseValue(slot->inputValue);
    }
    free(slot->input);
    memset(slot, 0, sizeof *slot);
}

void allspark_ort_session_free(allspark_ort_session *session) {
    if (session == NULL) {
        return;
    }
    const OrtApi *api = session->runtime->api;
    for (int32_t i = 0; i < session->slotCount; ++i) {
        release_slot(api, &session->slots[i], session->outputCount);
    }
    for (int32_t i = 0; i < session->outputCount; ++i) {
        free(session->outputNames[i]);
    }
    free(session->inputName);
    if (session->memory != NULL) {
        api->ReleaseMemoryInfo(session->memory);
    }
    if (session->session != NULL) {
        api->ReleaseSession(session->session);
    }
    free(session);
}

// One thread, the caller's: the node gives the search one core's share and no pool
// thread spins waiting for work (ONNX Runtime's pools spin by default). No memory
// pattern: planned per input size, it kept 7 MB more for YuNet at the same speed.
static OrtSessionOptions *single_thread_options(const OrtApi *api, char *error, size_t error_size) {
    OrtSessionOptions *options = NULL;
    if (failed(api, api->CreateSessionOptions(&options), "session options", error, error_size)) {
        return NULL;
    }
    if (failed(api, api->SetIntraOpNumThreads(options, 1), "intra-op threads", error, error_size) ||
        failed(api, api->SetInterOpNumThreads(options, 1), "inter-op threads", error, error_size) ||
        failed(api, api->SetSessionExecutionMode(options, ORT_SEQUENTIAL), "execution mode", error, error_size) ||
        failed(api, api->DisableMemPattern(options), "memory pattern", error, error_size) ||
        failed(api, api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), "optimisation level", error,
               error_size) ||
        failed(api, api->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"), "spinning", error,
               error_size) ||
        failed(api, api->AddSessionConfigEntry(options, "session.inter_op.allow_spinning", "0"), "spinning", error,
               error_size)) {
        api->ReleaseSessionOptions(options);
        return NULL;
    }
    return options;
}

// The model's one input must be a float tensor of rank 4: [1, 3, H, W].
static int check_input(allspark_ort_session *session, char *error, size_t error_size) {
    const OrtApi *api = session->runtime->api;
    size_t inputs = 0;
    if (failed(api, api->SessionGetInputCount(session->session, &inputs), "reading its inputs", error, error_size)) {
        return 1;
    }
    if (inputs != 1) {
        say(error, error_size, "the model has %zu inputs, not one", inputs);
        return 1;
    }
    OrtAllocator *allocator = NULL;
    char *name = NULL;
    if (failed(api, api->GetAllocatorWithDefaultOptions(&allocator), "allocator", error, error_size) ||
        failed(api, api->SessionGetInputName(session->session, 0, allocator, &name), "input name", error, error_size)) {
        return 1;
    }
    session->inputName = strdup(name);
    OrtStatus *freed = api->AllocatorFree(allocator, name);
    if (session->inputName == NULL) {
        say(error, error_size, "out of memory");
        return 1;
    }
    if (failed(api, freed, "freeing the input name", error, error_size)) {
        return 1;
    }
    OrtTypeInfo *type = NULL;
    if (failed(api, api->SessionGetInputTypeInfo(session->session, 0, &type), "input type", error, error_size)) {
        return 1;
    }
    const OrtTensorTypeAndShapeInfo *tensor = NULL;
    ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t rank = 0;
    int bad = failed(api, api->CastTypeInfoToTensorInfo(type, &tensor), "input tensor", error, error_size) ||
              tensor == NULL ||
              failed(api, api->GetTensorElementType(tensor, &element), "input element", error, error_size) ||
              failed(api, api->GetDimensionsCount(tensor, &rank), "input rank", error, error_size);
    api->ReleaseTypeInfo(type);
    if (bad) {
        if (tensor == NULL && error != NULL && error[0] == '\0') {
            say(error, error_size, "the model's input is not a tensor");
        }
        return 1;
    }
    if (element != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || rank != 4) {
        say(error, error_size, "the model's input is not a float tensor of rank 4");
        return 1;
    }
    return 0;
}

allspark_ort_session *allspark_ort_session_create(allspark_ort_runtime *runtime, const void *model,
                                                  size_t model_size, const char *const *output_names, int32_t output_count,
                                                  char *error, size_t error_size) {
    if (error != NULL && error_size > 0) {
        error[0] = '\0';
    }
    if (runtime == NULL || model == NULL || model_size == 0 || output_names == NULL || output_count < 1 ||
        output_count > kMaxOutputs) {
        say(error, error_size, "invalid arguments");
        return NULL;
    }
    const OrtApi *api = runtime->api;
    allspark_ort_session *session = calloc(1, sizeof *session);
    if (session == NULL) {
        say(error, error_size, "out of memory");
        return NULL;
    }
    session->runtime = runtime;
    for (int32_t i = 0; i < output_count; ++i) {
        session->outputNames[i] = strdup(output_names[i]);
        if (session->outputNames[i] == NULL) {
            session->outputCount = i;
            allspark_ort_session_free(session);
            say(error, error_size, "out of memory");
            return NULL;
        }
    }
    session->outputCount = output_count;
    OrtSessionOptions *options = single_thread_options(api, error, error_size);
    if (options == NULL) {
        allspark_ort_session_free(session);
        return NULL;
    }
    // Debian 13's libonnxruntime links Debian's shared libonnx, which has registered ONNX's
    // operator schemas before the first session registers them again; ONNX then prints a
    // "Schema error: ... already registered" line for each (567) on stderr, at every start.
    allspark_quiet_stderr quiet = allspark_quiet_stderr_begin();
    OrtStatus *created = api->CreateSessionFromArray(runtime->env, model, model_size, options, &session->session);
    allspark_quiet_stderr_end(quiet, "Schema error: Trying to register schema with name ");
    api->ReleaseSessionOptions(options);
    if (failed(api, created, "loading the model", error, error_size) ||
        failed(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &session->memory), "memory info",
               error, error_size) ||
        check_input(session, error, error_size)) {
        allspark_ort_session_free(session);
        return NULL;
    }
    return session;
}

float *allspark_ort_session_input(allspark_ort_session *session, int32_t width, int32_t height, char *error,
                                  size_t error_size) {
    if (session == NULL || width < 1 || height < 1 || width > 16384 || height > 16384) {
        say(error, error_size, "invalid input size");
        return NULL;
    }
    for (int32_t i = 0; i < session->slotCount; ++i) {
        if (session->slots[i].width == width && session->slots[i].height == height) {
            const size_slot found = session->slots[i];
            memmove(&session->slots[1], &session->slots[0], (size_t)i * sizeof(size_slot));
            session->slots[0] = found;
            return found.input;
        }
    }
    const OrtApi *api = session->runtime->api;
    if (session->slotCount == kSlotsKept) {
        release_slot(api, &session->slots[kSlotsKept - 1], session->outputCount);
        session->slotCount -= 1;
    }
    size_slot slot;
    memset(&slot, 0, sizeof slot);
    slot.width = width;
    slot.height = height;
    const size_t floats = 3 * (size_t)width * (size_t)height;
    slot.input = calloc(floats, sizeof(float));
    if (slot.input == NULL) {
        say(error, error_size, "out of memory");
        return NULL;
    }
    const int64_t shape[4] = {1, 3, height, width};
    if (failed(api,
               api->CreateTensorWithDataAsOrtValue(session->memory, slot.input, floats * sizeof(float), shape, 4,
                                                   ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &slot.inputValue),
               "input tensor", error, error_size)) {
        free(slot.input);
        return NULL;
    }
    memmove(&session->slots[1], &session->slots[0], (size_t)session->slotCount * sizeof(size_slot));
    session->slots[0] = slot;
    session->slotCount += 1;
    return slot.input;
}

// Where output `index` of the last run lies, if it is a float tensor.
static int read_output(const OrtApi *api, OrtValue *value, const float **data, size_t *length, char *error,
                       size_t error_size) {
    OrtTensorTypeAndShapeInfo *info = NULL;
    if (failed(api, api->GetTensorTypeAndShape(value, &info), "output shape", error, error_size)) {
        return 1;
    }
    ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    int bad = failed(api, api->GetTensorElementType(info, &element), "output element", error, error_size) ||
              failed(api, api->GetTensorShapeElementCount(info, length), "output size", error, error_size);
    api->ReleaseTensorTypeAndShapeInfo(info);
    if (bad) {
        return 1;
    }
    if (element != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
        say(error, error_size, "an output is not a float tensor");
        return 1;
    }
    void *raw = NULL;
    if (failed(api, api->GetTensorMutableData(value, &raw), "output data", error, error_size)) {
        return 1;
    }
    *data = raw;
    return 0;
}

int32_t allspark_ort_session_run(allspark_ort_session *session, const float **outputs, size_t *lengths, char *error,
                                 size_t error_size) {
    if (session == NULL || outputs == NULL || lengths == NULL || session->slotCount == 0) {
        say(error, error_size, "no input prepared");
        return 1;
    }
    const OrtApi *api = session->runtime->api;
    size_slot *slot = &session->slots[0];
    const char *inputNames[1] = {session->inputName};
    const OrtValue *inputs[1] = {slot->inputValue};
    // Tensors from an earlier run at this size are written in place; ONNX Runtime makes
    // them on the first.
    OrtStatus *ran = api->Run(session->session, NULL, inputNames, inputs, 1, (const char *const *)session->outputNames,
                              (size_t)session->outputCount, slot->outputs);
    if (failed(api, ran, "running the model", error, error_size)) {
        return 1;
    }
    for (int32_t i = 0; i < session->outputCount; ++i) {
        if (slot->outputs[i] == NULL ||
            read_output(api, slot->outputs[i], &outputs[i], &lengths[i], error, error_size)) {
            if (slot->outputs[i] == NULL) {
                say(error, error_size, "output %d is missing", i);
            }
            return 1;
        }
    }
    return 0;
}
