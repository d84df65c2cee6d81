#include "allspark_opencv.h"

#include <opencv2/core/version.hpp>

const char *allspark_status_description(allspark_status status) {
    switch (status) {
    case ALLSPARK_OK:
        return "ok";
    case ALLSPARK_ERROR_INVALID_ARGUMENT:
        return "invalid argument";
    case ALLSPARK_ERROR_CASCADE_LOAD:
        return "cascade file could not be loaded";
    case ALLSPARK_ERROR_TOO_MANY_OBJECTS:
        return "more objects found than the result buffer holds";
    case ALLSPARK_ERROR_OPENCV:
        return "OpenCV error";
    case ALLSPARK_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case ALLSPARK_ERROR_UNKNOWN:
        return "unknown C++ exception";
    case ALLSPARK_ERROR_MODEL_LOAD:
        return "model file could not be loaded";
    }
    return "unknown status";
}

const char *allspark_opencv_version(void) {
    return CV_VERSION;
}
