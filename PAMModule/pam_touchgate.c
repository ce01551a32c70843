// pam_touchgate.so: runs touchgate-pam-helper for one pam_authenticate and relays the host's
// conversation to it (docs/design.md, "The PAM module"). No threads, no signal handlers, no
// allocation that outlives a call; every path that is not a clean outcome from the helper fails
// closed. Only pam_sm_authenticate and pam_sm_setcred are exported.
#define _GNU_SOURCE
#include "pam_touchgate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#ifndef TOUCHGATE_DEFAULT_HELPER
#define TOUCHGATE_DEFAULT_HELPER "/usr/libexec/touchgate/touchgate-pam-helper"
#endif
#define HIDDEN __attribute__((visibility("hidden")))
#define DEFAULT_TIMEOUT_SECONDS 180

struct options {
    const char *helper;
    const char *factor;
    int timeout_seconds;
    int silent;
};

HIDDEN int parse_options(int argc, const char **argv, struct options *options, pam_handle_t *pamh) {
    options->helper = TOUCHGATE_DEFAULT_HELPER;
    options->factor = "";
    options->timeout_seconds = DEFAULT_TIMEOUT_SECONDS;
    options->silent = 0;
    for (int i = 0; i < argc; i++) {
        const char *argument = argv[i];
        if (strncmp(argument, "helper=", 7) == 0) {
            options->helper = argument + 7;
        } else if (strcmp(argument, "factor=biometric") == 0) {
            options->factor = "biometric";
        } else if (strcmp(argument, "factor=passcode") == 0) {
            options->factor = "passcode";
        } else if (strcmp(argument, "silent") == 0) {
            options->silent = 1;
        } else if (strncmp(argument, "timeout=", 8) == 0) {
            char *end = NULL;
            errno = 0;
            long value = strtol(argument + 8, &end, 10);
            if (errno != 0 || end == argument + 8 || *end != '\0' || value < 1 || value > 3600) {
                pam_syslog(pamh, LOG_ERR, "bad option %s: expected timeout=1..3600", argument);
                return -1;
            }
            options->timeout_seconds = (int)value;
        } else {
            pam_syslog(pamh, LOG_ERR, "unknown option %s", argument);
            return -1;
        }
    }
    return 0;
}

/// The helper and every directory above it must belong to root and be writable by no one else
/// (a sticky directory is not enough: anyone could put a file there). Symbolic links are not
/// followed: the path given is the file run.
HIDDEN int helper_is_trusted(const char *path, pam_handle_t *pamh) {
    size_t length = strlen(path);
    if (path[0] != '/' || length >= PATH_MAX) {
        pam_syslog(pamh, LOG_ERR, "helper=%s: not an absolute path", path);
        return 0;
    }
    char copy[PATH_MAX];
    memcpy(copy, path, length + 1);
    struct stat info;
    if (lstat(copy, &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != 0 || (info.st_mode & (S_IWGRP | S_IWOTH))
        || !(info.st_mode & S_IXUSR)) {
        pam_syslog(pamh, LOG_ERR, "helper %s refused: not a root-owned executable file writable only by root", path);
        return 0;
    }
    for (;;) {
        char *slash = strrchr(copy, '/');
        if (slash == copy) {
            copy[1] = '\0';
        } else {
            *slash = '\0';
        }
        if (lstat(copy, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != 0 || (info.st_mode & (S_IWGRP | S_IWOTH))) {
            pam_syslog(pamh, LOG_ERR, "helper %s refused: directory %s is not root-owned or is writable by others", path, copy);
            return 0;
        }
        if (strcmp(copy, "/") == 0) return 1;
    }
}

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// Writes all of `length` bytes; 0 on success.
HIDDEN int write_all(int fd, const unsigned char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = send(fd, bytes, length, MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

HIDDEN int send_frame(int fd, unsigned char kind, const unsigned char *payload, size_t length) {
    if (length > TOUCHGATE_FRAME_MAX) return -1;
    unsigned char header[3] = {kind, (unsigned char)(length >> 8), (unsigned char)(length & 0xFF)};
    if (write_all(fd, header, 3) != 0) return -1;
    return length == 0 ? 0 : write_all(fd, payload, length);
}

/// Reads exactly `length` bytes before `deadline` (monotonic ms); 0 on success.
HIDDEN int read_exact(int fd, unsigned char *bytes, size_t length, int64_t deadline) {
    while (length > 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0) return -1;
        struct pollfd descriptor = {.fd = fd, .events = POLLIN};
        int ready = poll(&descriptor, 1, (int)(left > INT_MAX ? INT_MAX : left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return -1;
        ssize_t count = recv(fd, bytes, length, 0);
        if (count < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (count <= 0) return -1;
        bytes += count;
        length -= (size_t)count;
    }
    return 0;
}

/// One frame from the helper into `payload` (TOUCHGATE_FRAME_MAX + 1 bytes, NUL-terminated);
/// -1 on end of file, timeout or a length out of range.
HIDDEN int receive_frame(int fd, unsigned char *kind, unsigned char *payload, size_t *length, int64_t deadline) {
    unsigned char header[3];
    if (read_exact(fd, header, 3, deadline) != 0) return -1;
    size_t size = ((size_t)header[1] << 8) | header[2];
    if (size > TOUCHGATE_FRAME_MAX) return -1;
    if (size > 0 && read_exact(fd, payload, size, deadline) != 0) return -1;
    payload[size] = '\0';
    *kind = header[0];
    *length = size;
    return 0;
}

/// Appends one length-prefixed item (an absent item is empty); -1 when it does not fit.
HIDDEN int append_item(unsigned char *buffer, size_t *used, const char *item) {
    size_t length = item ? strlen(item) : 0;
    if (length > 255 || *used + 2 + length > TOUCHGATE_FRAME_MAX) return -1;
    buffer[(*used)++] = (unsigned char)(length >> 8);
    buffer[(*used)++] = (unsigned char)(length & 0xFF);
    memcpy(buffer + *used, item, length);
    *used += length;
    return 0;
}

static const char *item(pam_handle_t *pamh, int type) {
    const void *value = NULL;
    if (pam_get_item(pamh, type, &value) != PAM_SUCCESS) return NULL;
    return value;
}

/// Runs the host's conversation for one message; the answer (if any) is copied into `answer`
/// and the host's copy wiped and freed. Returns the number of bytes, or -1 when there is none.
HIDDEN int converse(pam_handle_t *pamh, int style, const char *text, unsigned char *answer) {
    const void *item_value = NULL;
    if (pam_get_item(pamh, PAM_CONV, &item_value) != PAM_SUCCESS || item_value == NULL) return -1;
    const struct pam_conv *conversation = item_value;
    if (conversation->conv == NULL) return -1;
    struct pam_message message = {.msg_style = style, .msg = text};
    const struct pam_message *messages[1] = {&message};
    struct pam_response *responses = NULL;
    int status = conversation->conv(1, messages, &responses, conversation->appdata_ptr);
    int length = -1;
    if (status == PAM_SUCCESS && responses != NULL && responses[0].resp != NULL) {
        size_t size = strlen(responses[0].resp);
        if (size <= PAM_MAX_RESP_SIZE && size <= TOUCHGATE_FRAME_MAX) {
            memcpy(answer, responses[0].resp, size);
            length = (int)size;
        }
        explicit_bzero(responses[0].resp, size);
    } else if (status == PAM_SUCCESS && (style == PAM_TEXT_INFO || style == PAM_ERROR_MSG)) {
        length = 0;
    }
    if (responses != NULL) {
        free(responses[0].resp);
        free(responses);
    }
    return length;
}

/// The PAM status for the helper's LAError outcome.
HIDDEN int status_for_outcome(int32_t code) {
    switch (code) {
    case 0: return PAM_SUCCESS;                  // success
    case -1: return PAM_AUTH_ERR;                // authenticationFailed
    case -8: return PAM_MAXTRIES;                // biometryLockout
    case -2: case -4: case -9: return PAM_CONV_ERR; // userCancel, systemCancel, appCancel
    case -3: case -5: case -6: case -7: case -1004: return PAM_AUTHINFO_UNAVAIL; // fallback, not set/available/enrolled, not interactive
    default: return PAM_AUTH_ERR;
    }
}

/// Kills the helper's process group if it still runs and reaps it.
static void end_helper(pid_t pid) {
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
}

/// Waits up to `milliseconds` for the helper to exit by itself; 1 when it exited with status 0.
static int helper_exited_cleanly(pid_t pid, int milliseconds) {
    int64_t deadline = now_ms() + milliseconds;
    int status;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (done < 0 && errno != EINTR) return 0;
        if (now_ms() >= deadline) return 0;
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 2000000};
        nanosleep(&pause, NULL);
    }
}

/// The terminal named by PAM_TTY, opened to save its modes (restored after the helper ends, as
/// they were found, whatever the helper did or how it died); -1 when it is not one.
static int open_terminal(const char *tty, struct termios *saved) {
    if (tty == NULL || strncmp(tty, "/dev/", 5) != 0) return -1;
    int fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    if (!isatty(fd) || tcgetattr(fd, saved) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/// Whether `argument` is a long option of sudo's (after "--", up to any "=") that getopt_long
/// would take for `name`: the whole name or an abbreviation of at least `shortest` characters.
static int is_long_option(const char *argument, const char *name, size_t shortest) {
    size_t length = strcspn(argument, "=");
    return length >= shortest && length <= strlen(name) && strncmp(argument, name, length) == 0;
}

/// Whether sudo's command line (its NUL-separated arguments, as /proc/self/cmdline holds them)
/// asks for -S (the password from standard input) or -A (from the askpass program): the options
/// before the command, read with sudo's own grammar (sudo_short_opts and sudo_long_opts in
/// sudo's src/parse_args.c). sudo reads either through the conversation the module calls.
HIDDEN int sudo_reads_elsewhere(const char *arguments, size_t length) {
    const char *end = arguments + length;
    const char *argument = arguments + strnlen(arguments, length) + 1;  // past argv[0]
    // The short options that take an argument (h's is optional and only attached).
    static const char with_argument[] = "aCcDgpRrTtUu";
    static const char *const long_with_argument[] = {"auth-type", "close-from", "login-class", "chdir", "group",
        "host", "prompt", "chroot", "role", "command-timeout", "type", "user", "other-user", NULL};
    while (argument < end) {
        size_t size = strnlen(argument, (size_t)(end - argument));
        const char *next = argument + size + 1;
        if (argument[0] != '-' || size == 1 || strcmp(argument, "--") == 0) return 0;  // the command
        if (argument[1] == '-') {
            const char *name = argument + 2;
            if (is_long_option(name, "askpass", 2) || is_long_option(name, "stdin", 2)) return 1;
            if (strchr(name, '=') == NULL) {
                for (int i = 0; long_with_argument[i] != NULL; i++) {
                    if (is_long_option(name, long_with_argument[i], strlen(long_with_argument[i]))) {
                        next += strnlen(next, next < end ? (size_t)(end - next) : 0) + 1;  // its argument
                        break;
                    }
                }
            }
        } else {
            for (const char *option = argument + 1; *option != '\0'; option++) {
                if (*option == 'A' || *option == 'S') return 1;
                if (*option == 'h') break;  // -hHOST: the rest is its argument
                if (strchr(with_argument, *option) != NULL) {
                    // Attached (-pPROMPT) or the next argument (-p PROMPT).
                    if (option[1] == '\0' && next < end) next += strnlen(next, (size_t)(end - next)) + 1;
                    break;
                }
            }
        }
        argument = next;
    }
    return 0;
}

/// Whether the host asks on the terminal PAM_TTY names, so the helper may ask there itself: the
/// host's standard input is that very terminal, and the host is not sudo told to read its pipe
/// (-S) or to run its askpass program (-A). When unsure, no: the host's own conversation (sudo's
/// prompt, its pipe, its askpass program, a polkit agent) is the rule, and it works for every host.
HIDDEN int terminal_is_hosts_prompt(const char *tty) {
    if (tty == NULL || tty[0] == '\0' || strchr(tty, ':') != NULL) return 0;
    char path[PATH_MAX];
    int written = tty[0] == '/' ? snprintf(path, sizeof path, "%s", tty) : snprintf(path, sizeof path, "/dev/%s", tty);
    if (written < 0 || (size_t)written >= sizeof path) return 0;
    struct stat input, named;
    if (!isatty(STDIN_FILENO) || fstat(STDIN_FILENO, &input) != 0 || stat(path, &named) != 0) return 0;
    if (!S_ISCHR(input.st_mode) || !S_ISCHR(named.st_mode) || input.st_rdev != named.st_rdev) return 0;
    char executable[PATH_MAX];
    ssize_t size = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (size <= 0) return 0;
    executable[size] = '\0';
    const char *name = strrchr(executable, '/');
    name = name ? name + 1 : executable;
    if (strcmp(name, "sudo") != 0 && strcmp(name, "sudoedit") != 0) return 1;
    // sudo: its command line says where it reads the password.
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char arguments[8192];
    size_t used = 0;
    for (;;) {
        ssize_t count = read(fd, arguments + used, sizeof arguments - 1 - used);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        used += (size_t)count;
        if (used == sizeof arguments - 1) break;
    }
    close(fd);
    // Nothing read, or perhaps not all of it: not sure.
    if (used == 0 || used == sizeof arguments - 1) return 0;
    arguments[used] = '\0';
    return !sudo_reads_elsewhere(arguments, used);
}

HIDDEN int authenticate(pam_handle_t *pamh, const struct options *options, int silent) {
    // The helper's own stacks (touchgate, touchgate-biometric) may include common-auth, where
    // pam-auth-update can put this module: there it steps aside, or each helper would run another.
    const char *service = item(pamh, PAM_SERVICE);
    if (service != NULL && (strcmp(service, "touchgate") == 0 || strcmp(service, "touchgate-biometric") == 0)) {
        return PAM_IGNORE;
    }
    if (!helper_is_trusted(options->helper, pamh)) return PAM_SYSTEM_ERR;
    const char *user = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL || user[0] == '\0') return PAM_USER_UNKNOWN;

    unsigned char start[TOUCHGATE_FRAME_MAX];
    size_t used = 0;
    const char *tty = item(pamh, PAM_TTY);
    // The helper asks on the terminal only where the host would; else through the conversation.
    int at_terminal = terminal_is_hosts_prompt(tty);
    const char *flags = at_terminal ? (silent ? "terminal silent" : "terminal") : (silent ? "silent" : "");
    if (append_item(start, &used, user) || append_item(start, &used, item(pamh, PAM_RUSER))
        || append_item(start, &used, item(pamh, PAM_SERVICE)) || append_item(start, &used, tty)
        || append_item(start, &used, item(pamh, PAM_RHOST)) || append_item(start, &used, options->factor)
        || append_item(start, &used, flags)) {
        pam_syslog(pamh, LOG_ERR, "a PAM item is too long to hand to the helper");
        return PAM_SYSTEM_ERR;
    }

    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return PAM_SYSTEM_ERR;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // Standard input, output and error are /dev/null; the socket is descriptor 3; nothing else.
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *const argv[] = {(char *)"touchgate-pam-helper", NULL};
    char *const envp[] = {NULL};
    pid_t pid = 0;
    struct termios saved_modes;
    int terminal = at_terminal ? open_terminal(tty, &saved_modes) : -1;
    int spawned = posix_spawn(&pid, options->helper, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(ends[1]);
    if (spawned != 0) {
        close(ends[0]);
        if (terminal >= 0) close(terminal);
        pam_syslog(pamh, LOG_ERR, "cannot run helper %s: %s", options->helper, strerror(spawned));
        return PAM_SYSTEM_ERR;
    }

    int result = PAM_AUTH_ERR;  // what every path but a clean outcome ends with
    int64_t limit = (int64_t)options->timeout_seconds * 1000;
    int64_t deadline = now_ms() + limit;
    unsigned char payload[TOUCHGATE_FRAME_MAX + 1];
    unsigned char answer[TOUCHGATE_FRAME_MAX + 1];
    int outcome_received = 0;
    int32_t outcome = 0;
    if (send_frame(ends[0], TOUCHGATE_FRAME_START, start, used) != 0) goto done;
    for (;;) {
        unsigned char kind = 0;
        size_t length = 0;
        if (receive_frame(ends[0], &kind, payload, &length, deadline) != 0) goto done;
        if (kind == TOUCHGATE_FRAME_OUTCOME) {
            if (length != 4) goto done;
            outcome = (int32_t)(((uint32_t)payload[0] << 24) | ((uint32_t)payload[1] << 16) | ((uint32_t)payload[2] << 8) | payload[3]);
            outcome_received = 1;
            break;
        }
        int style;
        switch (kind) {
        case TOUCHGATE_FRAME_PROMPT_OFF: style = PAM_PROMPT_ECHO_OFF; break;
        case TOUCHGATE_FRAME_PROMPT_ON: style = PAM_PROMPT_ECHO_ON; break;
        case TOUCHGATE_FRAME_INFO: style = PAM_TEXT_INFO; break;
        case TOUCHGATE_FRAME_ERROR: style = PAM_ERROR_MSG; break;
        default: goto done;
        }
        // The helper sanitized the text; a NUL inside it is nonsense.
        if (memchr(payload, '\0', length) != NULL) goto done;
        int64_t asked = now_ms();
        int answered = converse(pamh, style, (const char *)payload, answer);
        // The time a person takes to answer is not the helper's.
        deadline += now_ms() - asked;
        if (style == PAM_TEXT_INFO || style == PAM_ERROR_MSG) continue;
        int sent = answered >= 0
            ? send_frame(ends[0], TOUCHGATE_FRAME_ANSWER, answer, (size_t)answered)
            : send_frame(ends[0], TOUCHGATE_FRAME_NO_ANSWER, NULL, 0);
        explicit_bzero(answer, sizeof answer);
        if (sent != 0) goto done;
    }
done:
    explicit_bzero(answer, sizeof answer);
    explicit_bzero(payload, sizeof payload);
    close(ends[0]);
    // The helper exits once it sent its outcome; one that does not within a second is killed.
    int clean = outcome_received && helper_exited_cleanly(pid, 1000);
    end_helper(pid);
    if (terminal >= 0) {
        tcsetattr(terminal, TCSANOW, &saved_modes);
        close(terminal);
    }
    if (clean) {
        result = status_for_outcome(outcome);
    } else if (!outcome_received) {
        pam_syslog(pamh, LOG_ERR, "helper %s ended without an outcome (died, hung or broke the protocol)", options->helper);
    }
    return result;
}

__attribute__((visibility("default"))) PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    struct options options;
    if (parse_options(argc, argv, &options, pamh) != 0) return PAM_SERVICE_ERR;
    return authenticate(pamh, &options, options.silent || (flags & PAM_SILENT));
}

__attribute__((visibility("default"))) PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}
