#include "allspark_opencv.h"

#include <opencv2/core.hpp>

// OpenCV runs on one thread in any process that links the node: the detection thread calls it
// and leaves the other core to capture and encoding. cv::setNumThreads rebuilds OpenCV's pool
// (a TBB arena in Debian 13's OpenCV), which crashes a parallel call running on another thread
// at that moment, so the count is set once as the program loads, before it has other threads.
__attribute__((constructor)) static void allspark_opencv_one_thread() {
    try {
        cv::setNumThreads(1);
    } catch (...) {
        // Only a hint: OpenCV keeps its own default if it refuses.
    }
}

int32_t allspark_opencv_threads(void) {
    try {
        return cv::getNumThreads();
    } catch (...) {
        return -1;
    }
}
