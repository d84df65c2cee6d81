#define _GNU_SOURCE
#include "quiet_stderr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

allspark_quiet_stderr allspark_quiet_stderr_begin(void) {
    allspark_quiet_stderr quiet = {.saved = -1, .memory = -1};
    fflush(stderr);
    int memory = memfd_create("allspark-stderr", MFD_CLOEXEC);
    if (memory < 0) return quiet;
    int saved = dup(STDERR_FILENO);
    if (saved < 0 || dup2(memory, STDERR_FILENO) < 0) {
        if (saved >= 0) close(saved);
        close(memory);
        return quiet;
    }
    quiet.saved = saved;
    quiet.memory = memory;
    return quiet;
}

static void write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written <= 0) return;
        bytes += written;
        length -= (size_t)written;
    }
}

void allspark_quiet_stderr_end(allspark_quiet_stderr quiet, const char *dropped_prefix) {
    if (quiet.saved < 0) return;
    fflush(stderr);
    dup2(quiet.saved, STDERR_FILENO);
    close(quiet.saved);
    off_t size = lseek(quiet.memory, 0, SEEK_END);
    char *text = size > 0 ? malloc((size_t)size) : NULL;
    if (text != NULL && pread(quiet.memory, text, (size_t)size, 0) == size) {
        size_t prefix = strlen(dropped_prefix);
        const char *line = text, *end = text + size;
        while (line < end) {
            const char *newline = memchr(line, '\n', (size_t)(end - line));
            const char *next = newline != NULL ? newline + 1 : end;
            if ((size_t)(next - line) < prefix || memcmp(line, dropped_prefix, prefix) != 0) {
                write_all(STDERR_FILENO, line, (size_t)(next - line));
            }
            line = next;
        }
    }
    free(text);
    close(quiet.memory);
}
