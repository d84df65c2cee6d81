#define _GNU_SOURCE  // pipe2

#include "quiet_stderr.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct allspark_captured {
    int read_end;
    char *bytes;
    size_t length;
    size_t capacity;
};

// One redirection at a time: two interleaved would each restore the other's pipe as standard
// error, and a drain would wait forever for the end of a pipe that standard error still holds.
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static void *drain(void *argument) {
    struct allspark_captured *captured = argument;
    char chunk[4096];
    ssize_t got;
    while ((got = read(captured->read_end, chunk, sizeof chunk)) > 0) {
        if (captured->length + (size_t)got > captured->capacity) {
            size_t capacity = (captured->capacity + (size_t)got) * 2;
            char *grown = realloc(captured->bytes, capacity);
            if (grown == NULL) continue;  // out of memory: this chunk is dropped
            captured->bytes = grown;
            captured->capacity = capacity;
        }
        memcpy(captured->bytes + captured->length, chunk, (size_t)got);
        captured->length += (size_t)got;
    }
    return NULL;
}

allspark_quiet_stderr allspark_quiet_stderr_begin(void) {
    allspark_quiet_stderr quiet = {.saved = -1, .captured = NULL};
    pthread_mutex_lock(&one_at_a_time);
    struct allspark_captured *captured = calloc(1, sizeof *captured);
    int ends[2];
    if (captured == NULL) {
        pthread_mutex_unlock(&one_at_a_time);
        return quiet;
    }
    if (pipe2(ends, O_CLOEXEC) != 0) {
        free(captured);
        pthread_mutex_unlock(&one_at_a_time);
        return quiet;
    }
    captured->read_end = ends[0];
    fflush(stderr);
    int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
    if (saved < 0 || pthread_create(&quiet.drain, NULL, drain, captured) != 0) {
        if (saved >= 0) close(saved);
        close(ends[0]);
        close(ends[1]);
        free(captured);
        pthread_mutex_unlock(&one_at_a_time);
        return quiet;
    }
    // Not close-on-exec: a child another thread starts meanwhile would find its standard
    // error closed, and the first file it opens would take that number. It inherits the pipe
    // instead, and the call ends once that child has exited too.
    if (dup2(ends[1], STDERR_FILENO) < 0) {
        close(ends[1]);
        pthread_join(quiet.drain, NULL);
        close(ends[0]);
        close(saved);
        free(captured->bytes);
        free(captured);
        pthread_mutex_unlock(&one_at_a_time);
        return quiet;
    }
    close(ends[1]);  // standard error holds the write end now
    quiet.saved = saved;
    quiet.captured = captured;
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
    dup2(quiet.saved, STDERR_FILENO);  // closes the pipe's last write end: the drain sees its end
    close(quiet.saved);
    pthread_join(quiet.drain, NULL);
    struct allspark_captured *captured = quiet.captured;
    close(captured->read_end);
    size_t prefix = strlen(dropped_prefix);
    const char *line = captured->bytes, *end = captured->bytes + captured->length;
    while (line != NULL && line < end) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        const char *next = newline != NULL ? newline + 1 : end;
        if ((size_t)(next - line) < prefix || memcmp(line, dropped_prefix, prefix) != 0) {
            write_all(STDERR_FILENO, line, (size_t)(next - line));
        }
        line = next;
    }
    free(captured->bytes);
    free(captured);
    pthread_mutex_unlock(&one_at_a_time);
}
