/*
 * spamfilter --socket PATH: the daemon client, compiled (the twin of spamclient.py).
 *
 * A mail delivery agent starts the filter once per message, so the client's own start-up
 * is paid per message. Python's alone (`python -S -c pass`, 11-14 ms) is several times a
 * whole bogofilter run; this program starts in about a millisecond, sends the message to
 * `textnb serve MODEL --socket PATH` and writes the verdict exactly as the Python client
 * does (textnb.apps.spamclient): the same request, exit status, -p output and error lines.
 *
 * It is what `pip install .` installs as `spamfilter` when a C compiler is at hand
 * (textnb/apps/spamclient_build.py, setup.py). Anything that is not the client's happy
 * path is left to Python: without --socket (or with -h/--help/--version), and for any argument
 * this program does not recognise exactly (an unknown option, a malformed number), it
 * replaces itself with the Python `spamfilter` (TEXTNB_FALLBACK, set at build time: for
 * an installed client the console script textnb-spamfilter-python in this program's own
 * folder, which pip writes for the interpreter it installs with) before reading a byte of
 * the message, so the Python command gives its own answer or its own error (when it
 * cannot be run: one line, exit 3, with -p the message written out unchanged).
 * From the moment the message is read, every failure is handled here as
 * the Python client handles it: one line on stderr, exit 3, and with -p the message
 * written out unchanged (never lost, never written twice).
 *
 * Protocol (textnb.apps.serve): send
 *     SPAM <n> [spam_cutoff=<p>] [ham_cutoff=<p>] [max_bytes=<n>] [headers=1]\n<n bytes>
 * and read OK <exit code> <label> <score> <log-odds> <m>\n<m bytes>, or ERR <line>\n.
 *
 * Exit status: 0 spam, 1 ham, 2 unsure (with -p -e: 0), 3 error, 130 interrupted.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "spamclient_config.h" /* TEXTNB_FALLBACK: the Python command's argv prefix */

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define DEFAULT_MAX_BYTES (10L * 1024 * 1024) /* textnb.io.mail.DEFAULT_MAX_BYTES */
#define MAX_SIZE (4LL * 1024 * 1024 * 1024)   /* parse_size's upper bound, 4 GiB */
#define TIMEOUT_S 60                          /* spamclient.DEFAULT_TIMEOUT */
#define MAX_REPLY_LINE (64 * 1024)
#define MAX_HEAD_GROWTH (64 * 1024) /* protocol.MAX_HEAD_GROWTH */
#define CHUNK (1 << 16)
#define EXIT_ERROR 3
#define EXIT_INTERRUPTED 130

static const char *const fallback_prefix[] = {TEXTNB_FALLBACK, NULL};

static volatile sig_atomic_t caught; /* the first SIGINT / SIGTERM / SIGHUP, 0 if none */
static int stdin_closed, stdout_closed;
static int quiet; /* after a failure in -p mode: the message is written out, nothing more said */

/* ---------------------------------------------------------------- the Python command */
static int asks_batch(int argc, char **argv)
{ /* spamclient.asks_batch: --batch (-B, an abbreviation, --batch=PATH, B in a cluster of flags) */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            size_t n = strcspn(a, "=");
            if (n > 2 && n <= 7 && !strncmp(a, "--batch", n))
                return 1;
        } else if (a[0] == '-') {
            for (const char *c = a + 1; *c; c++) {
                if (*c == 'B')
                    return 1;
                if (!strchr("peh", *c))
                    break;
            }
        }
    }
    return 0;
}

static int wants_passthrough(int argc, char **argv)
{ /* spamclient.client_main's test, before the options are parsed (-p has no effect with --batch) */
    if (asks_batch(argc, argv))
        return 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t n = strlen(a); /* --passthrough, or an abbreviation as argparse takes it (no other option starts --p) */
        if (!strcmp(a, "-p") || (n > 2 && n <= 13 && !strncmp(a, "--passthrough", n)))
            return 1;
        if (a[0] == '-' && a[1] != '-' && strchr(a + 1, 'p'))
            return 1;
    }
    return 0;
}

static void copy_fd(int from, int to)
{
    char buf[CHUNK];
    ssize_t n;
    while ((n = read(from, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        for (ssize_t off = 0; n > 0 && off < n;) {
            ssize_t w = write(to, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return;
            off += w;
        }
    }
}

/* This executable's own path, links resolved, into `self`: /proc/self/exe, else argv[0]
   as the shell found it (a path, or the first executable of that name on PATH). 0 if
   not found (errno set). */
static int own_path(const char *argv0, char self[PATH_MAX])
{
    ssize_t n = readlink("/proc/self/exe", self, PATH_MAX - 1);
    if (n > 0 && n < PATH_MAX - 1 && self[0] == '/') {
        self[n] = '\0';
        return 1;
    }
    if (strchr(argv0, '/'))
        return realpath(argv0, self) != NULL;
    const char *d = getenv("PATH");
    for (d = d ? d : ""; *argv0;) {
        size_t len = strcspn(d, ":"); /* (an empty entry is the working directory) */
        char candidate[PATH_MAX];
        int w = snprintf(candidate, sizeof candidate, "%.*s/%s", len ? (int)len : 1, len ? d : ".", argv0);
        if (w > 0 && (size_t)w < sizeof candidate && access(candidate, X_OK) == 0 && realpath(candidate, self))
            return 1;
        if (!d[len])
            break;
        d += len + 1;
    }
    errno = ENOENT;
    return 0;
}

/* Replace this process with the Python spamfilter, same arguments (nothing read yet):
   TEXTNB_FALLBACK's program when it is a path, else the program of that name in this
   executable's own folder (the console script installed beside it). No other Python is
   tried (a `python3` on PATH may have another textnb, or none). */
static int run_python(int argc, char **argv)
{
    struct stat st;
    if (fstat(0, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* Python cannot start with a folder as stdin (a fatal error, exit 1: "ham") */
        fprintf(stderr, "spamfilter: stdin: %s\n", strerror(EISDIR));
        return EXIT_ERROR;
    }
    const char *program = fallback_prefix[0];
    char self[PATH_MAX], beside[PATH_MAX];
    int found = 1;
    if (!strchr(program, '/')) {
        found = own_path(argv[0] ? argv[0] : "", self);
        if (found) {
            int w = snprintf(beside, sizeof beside, "%.*s/%s", (int)(strrchr(self, '/') - self), self, program);
            found = w > 0 && (size_t)w < sizeof beside;
            if (found)
                program = beside;
            else
                errno = ENAMETOOLONG;
        }
    }
    size_t k = sizeof fallback_prefix / sizeof *fallback_prefix - 1;
    char **args = found ? calloc(k + (size_t)argc + 1, sizeof *args) : NULL;
    if (args) {
        args[0] = (char *)program;
        for (size_t i = 1; i < k; i++)
            args[i] = (char *)fallback_prefix[i];
        for (int i = 1; i < argc; i++)
            args[k + (size_t)i - 1] = argv[i];
        execv(program, args);
    }
    fprintf(stderr, "spamfilter: cannot run Python (%s): %s\n", program, strerror(errno));
    if (wants_passthrough(argc, argv))
        copy_fd(0, 1); /* the message goes on unchanged */
    return EXIT_ERROR;
}

/* ---------------------------------------------------------------- options */
struct options {
    const char *socket_path, *spam_cutoff, *ham_cutoff, *max_bytes;
    int passthrough, exit_zero;
};

/* Past the digits, point and digits of a plain decimal ("12", "1.5", ".5"); 0 if none. */
static const char *decimal(const char *p)
{
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    return digits ? p : NULL;
}

/* A probability written as plain decimals ("0.9", ".5", "1e-3", "1"), in [0, 1]. */
static int probability(const char *s, double *out)
{
    const char *p = decimal(s);
    if (!p)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !(v >= 0.0 && v <= 1.0))
        return 0;
    *out = v;
    return 1;
}

/* A size as "10M", "512k", "1.5m", "4096" (spamclient.parse_size's common forms). */
static int size_value(const char *s, long long *out)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    for (size_t i = 0; i <= n; i++)
        buf[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
    if (n > 1 && buf[n - 1] == 'b')
        buf[--n] = '\0';
    double mult = 1;
    switch (n ? buf[n - 1] : 0) {
    case 'k': mult = 1024.0; buf[--n] = '\0'; break;
    case 'm': mult = 1024.0 * 1024; buf[--n] = '\0'; break;
    case 'g': mult = 1024.0 * 1024 * 1024; buf[--n] = '\0'; break;
    }
    const char *p = decimal(buf);
    if (!p || *p)
        return 0;
    double v = strtod(buf, NULL) * mult;
    if (!(v >= 1.0 && v <= (double)MAX_SIZE))
        return 0;
    *out = (long long)v;
    return 1;
}

static int is_flag(char c, struct options *o)
{
    if (c == 'p')
        return o ? (o->passthrough = 1) : 1;
    if (c == 'e')
        return o ? (o->exit_zero = 1) : 1;
    return 0;
}

/* spamclient._parse; 0 for anything it would not take as it is (Python then answers). */
static int parse(int argc, char **argv, struct options *o)
{
    static const char *const names[] = {"--socket", "--spam-cutoff", "--ham-cutoff", "--max-bytes"};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int matched = 0;
        for (int k = 0; k < 4 && !matched; k++) {
            size_t len = strlen(names[k]);
            const char *value;
            if (!strncmp(arg, names[k], len) && (arg[len] == '=' || arg[len] == '\0')) {
                if (arg[len] == '=')
                    value = arg + len + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else
                    return 0;
                const char **slot[] = {&o->socket_path, &o->spam_cutoff, &o->ham_cutoff, &o->max_bytes};
                *slot[k] = value;
                matched = 1;
            }
        }
        if (matched)
            continue;
        if (!strcmp(arg, "--passthrough"))
            o->passthrough = 1;
        else if (!strcmp(arg, "--exit-zero"))
            o->exit_zero = 1;
        else if (arg[0] == '-' && arg[1] && arg[1] != '-') {
            for (const char *c = arg + 1; *c; c++)
                if (!is_flag(*c, NULL))
                    return 0;
            for (const char *c = arg + 1; *c; c++)
                is_flag(*c, o);
        } else
            return 0;
    }
    return o->socket_path && *o->socket_path;
}

/* ---------------------------------------------------------------- errors and signals */
static void say(const char *fmt, ...)
{
    char line[8192];
    va_list ap;
    if (quiet)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    char out[8192 + 16];
    int m = snprintf(out, sizeof out, "spamfilter: %.*s\n", n, line);
    if (m > 0 && write(2, out, (size_t)m) < 0)
        return;
}

/* The first stop signal is the only one answered (textnb.core.signals.stop_on_signals, the rule of
 * every textnb program): the three are ignored from then on, so a second Ctrl-C cannot stop the copy
 * of a passed-through message (it was cut there) nor change what is reported. */
static void on_signal(int signum)
{
    caught = signum;
    signal(SIGINT, SIG_IGN); /* (async-signal-safe) */
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read returns, the handler's flag is seen */
    sigemptyset(&sa.sa_mask);
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) /* (one arriving during the handler waits, then finds itself ignored) */
        sigaddset(&sa.sa_mask, stops[i]);
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        if (sigaction(stops[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* ignored by the caller (nohup): stays so, as in Python */
        sigaction(stops[i], &sa, NULL);
    }
    signal(SIGPIPE, SIG_IGN); /* a closed reader is an error to report, as in Python */
    /* a file size limit (ulimit -f) too: "stdout: File too large" (EFBIG), exit 3, -p's message written up to
       it, as Python, which ignores SIGXFSZ at start-up (the signal killed this program: exit 153, nothing said) */
    signal(SIGXFSZ, SIG_IGN);
}

/* Keep descriptors 0-2 taken (by /dev/null) when the process started with them closed. */
static void standard_fds(void)
{
    struct stat st;
    for (int fd = 0; fd < 3; fd++) {
        if (fstat(fd, &st) == 0)
            continue;
        if (fd == 0)
            stdin_closed = 1;
        if (fd == 1)
            stdout_closed = 1;
        int got = open("/dev/null", O_RDWR);
        if (got >= 0 && got != fd) {
            dup2(got, fd);
            close(got);
        }
    }
}

/* A failure: what the Python client reports, and its exit status. */
enum failure { OK = 0, FAIL_ERROR, FAIL_INTERRUPT, FAIL_TERM };

static enum failure signalled(void)
{
    if (caught == SIGINT)
        return FAIL_INTERRUPT;
    return caught ? FAIL_TERM : OK;
}

static enum failure report_signal(void)
{
    enum failure f = signalled();
    if (f == FAIL_INTERRUPT)
        say("interrupted");
    else if (f == FAIL_TERM)
        say("terminated by signal %d", (int)caught);
    return f;
}

/* ---------------------------------------------------------------- stdin and stdout */
struct buffer {
    char *data;
    size_t len, cap;
};

static int reserve(struct buffer *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->len + more)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return 0;
    b->data = p, b->cap = cap;
    return 1;
}

/* Read up to max bytes of stdin into b (what was read stays in b whatever happens). */
static enum failure read_head(struct buffer *b, long long max)
{
    if (stdin_closed) {
        say("stdin: standard input is closed");
        return FAIL_ERROR;
    }
    while ((long long)b->len < max) {
        size_t want = (size_t)((max - (long long)b->len) < (CHUNK * 16) ? (max - (long long)b->len) : (CHUNK * 16));
        if (!reserve(b, want)) {
            say("out of memory reading the message");
            return FAIL_ERROR;
        }
        ssize_t n = read(0, b->data + b->len, want);
        if (n > 0)
            b->len += (size_t)n;
        if (signalled())
            return report_signal();
        if (n == 0)
            break;
        if (n < 0 && errno != EINTR) {
            say("stdin: %s", strerror(errno)); /* (a folder given as stdin: "Is a directory") */
            return FAIL_ERROR;
        }
    }
    return OK;
}

/* Whether errno says a write found no room: a full disk, a quota, a file size limit (ulimit -f). Such a
   failure is standard output's ("stdout: File too large"), as the Python programs say it
   (textnb.core.signals.os_error_text); any other is "i/o: ..." */
static int no_room(int err)
{
#ifdef EDQUOT
    if (err == EDQUOT)
        return 1;
#endif
    return err == ENOSPC || err == EFBIG;
}

static enum failure write_all(const char *data, size_t len)
{
    if (stdout_closed && len) {
        say("stdout: standard output is closed");
        return FAIL_ERROR;
    }
    /* written whole before a stop signal is reported (its handler ignores the next ones):
       a stop is never a message cut in two (found by a user trial: the Python filter's
       -p left 64 KiB of a 4.8 MB message written to a slow reader) */
    while (len) {
        ssize_t w = write(1, data, len);
        if (w > 0)
            data += w, len -= (size_t)w;
        else if (w < 0 && errno != EINTR) {
            say("%s: %s", no_room(errno) ? "stdout" : "i/o", strerror(errno));
            return FAIL_ERROR;
        }
    }
    if (signalled())
        return report_signal();
    return OK;
}

/* The rest of stdin to stdout (copy) or to nowhere (drain). */
static enum failure rest_of_stdin(int copy)
{
    char buf[CHUNK];
    if (stdin_closed)
        return OK;
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n > 0 && copy) {
            enum failure f = write_all(buf, (size_t)n);
            if (f)
                return f;
        }
        if (signalled())
            return report_signal();
        if (n == 0)
            return OK;
        if (n < 0 && errno != EINTR) {
            say("i/o: %s", strerror(errno));
            return FAIL_ERROR;
        }
    }
}

/* ---------------------------------------------------------------- the daemon */
/* Python's repr() of a bytes object: how the Python client quotes a foreign reply. */
static void bytes_repr(const char *s, size_t n, char *out, size_t cap)
{
    int squote = memchr(s, '\'', n) != NULL, dquote = memchr(s, '"', n) != NULL;
    char q = (squote && !dquote) ? '"' : '\'';
    size_t o = 0;
    o += (size_t)snprintf(out + o, cap - o, "b%c", q);
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\')
            o += (size_t)snprintf(out + o, cap - o, "\\%c", c);
        else if (c == '\t')
            o += (size_t)snprintf(out + o, cap - o, "\\t");
        else if (c == '\n')
            o += (size_t)snprintf(out + o, cap - o, "\\n");
        else if (c == '\r')
            o += (size_t)snprintf(out + o, cap - o, "\\r");
        else if (c < 32 || c >= 127)
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        else
            out[o++] = (char)c;
    }
    snprintf(out + o, cap - o, "%c", q);
}

static const char *io_error(int err)
{
    return (err == EAGAIN || err == EWOULDBLOCK) ? "timed out" : strerror(err);
}

struct reply {
    int code;
    char *head;
    size_t head_len;
};

/* Read one reply line into line (without the newline); what came after it stays in rest.
 * Without a path (after a failed send, looking for the daemon's ERR line) nothing is said. */
static enum failure recv_line(int sock, const char *path, struct buffer *in, size_t *line_len)
{
    int was_quiet = quiet;
    enum failure f = OK;
    if (!path)
        quiet = 1;
    for (;;) {
        char *nl = in->len ? memchr(in->data, '\n', in->len) : NULL;
        if (nl) {
            *line_len = (size_t)(nl - in->data);
            break;
        }
        if (in->len > MAX_REPLY_LINE) {
            say("the daemon's reply line is too long");
            f = FAIL_ERROR;
            break;
        }
        if (!reserve(in, CHUNK)) {
            say("out of memory reading the reply");
            f = FAIL_ERROR;
            break;
        }
        ssize_t n = recv(sock, in->data + in->len, CHUNK, 0);
        if (n > 0)
            in->len += (size_t)n;
        if (signalled()) {
            f = path ? report_signal() : signalled();
            break;
        }
        if (n == 0) {
            say("the daemon closed the connection without a reply");
            f = FAIL_ERROR;
            break;
        }
        if (n < 0 && errno != EINTR) {
            say("%s: no reply from the daemon (%s)", path, io_error(errno));
            f = FAIL_ERROR;
            break;
        }
    }
    quiet = was_quiet;
    return f;
}

static int parse_long(const char *s, long long *out)
{
    char *end;
    if (!*s)
        return 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno)
        return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *s)
{
    char *end;
    if (!*s)
        return 0;
    for (const char *c = s; *c; c++) /* protocol._NUMBER_CHARS: what Python's float() reads alike */
        if (!strchr("0123456789+-.eEinfaINFA", *c))
            return 0;
    strtod(s, &end);
    return !*end;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(*s >= '0' && *s <= '9'))
            return 0;
    return 1;
}

/* The OK line's six fields: OK <code> <label> <score> <log-odds> <m> (protocol.parse_spam_reply:
 * an exit code 0-2 and a count in digits, a label of printable ASCII, no NUL in the line). */
static int parse_ok(char *line, size_t len, long long *code, long long *m)
{
    char *fields[7];
    int k = 0;
    if (memchr(line, '\0', len))
        return 0;
    line[len] = '\0';
    for (char *p = line; *p && k < 7;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
            *p++ = '\0';
        if (!*p)
            break;
        fields[k++] = p;
        while (*p && !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f'))
            p++;
    }
    if (k != 6 || strcmp(fields[0], "OK"))
        return 0;
    for (const char *c = fields[2]; *c; c++)
        if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
            return 0;
    return all_digits(fields[1]) && parse_long(fields[1], code) && *code <= 2 && parse_double(fields[3]) &&
           parse_double(fields[4]) && all_digits(fields[5]) && parse_long(fields[5], m);
}

/* protocol.head_length_possible: whether m bytes can be the daemon's answer to the message
 * (with -p: the message with its X-TextNB-* fields added, so longer than the message unless
 * it holds "x-textnb-" in any case, and never empty; at most MAX_HEAD_GROWTH more bytes). */
static int head_length_possible(long long m, const struct buffer *msg, int headers)
{
    static const char key[] = "x-textnb-";
    const size_t k = sizeof key - 1;
    if (m > (long long)msg->len + MAX_HEAD_GROWTH)
        return 0;
    if (!headers)
        return 1;
    for (size_t i = 0; i + k <= msg->len; i++) {
        size_t j = 0;
        while (j < k) {
            char c = msg->data[i + j];
            if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != key[j])
                break;
            j++;
        }
        if (j == k)
            return m > 0;
    }
    return m > (long long)msg->len;
}

static enum failure send_all(int sock, const char *path, const char *data, size_t len)
{
    while (len) {
        ssize_t w = send(sock, data, len, MSG_NOSIGNAL);
        if (w > 0)
            data += w, len -= (size_t)w;
        if (signalled())
            return report_signal();
        if (w < 0 && errno != EINTR) {
            int err = errno;
            struct buffer in = {0};
            size_t n;
            if (recv_line(sock, NULL, &in, &n) == OK && n >= 4 && !memcmp(in.data, "ERR ", 4))
                say("%.*s", (int)(n - 4), in.data + 4); /* the daemon said why (over its limit) */
            else if (!signalled())
                say("%s: cannot send the message (%s)", path, io_error(err));
            free(in.data);
            return signalled() ? report_signal() : FAIL_ERROR;
        }
    }
    return OK;
}

static enum failure classify(const struct options *o, double spam, double ham, long long max_bytes,
                             const struct buffer *msg, struct reply *r)
{
    const char *path = o->socket_path;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path) {
        say("%s: no daemon listening (AF_UNIX path too long); start one with `textnb serve MODEL --socket PATH`",
            path);
        return FAIL_ERROR;
    }
    memcpy(addr.sun_path, path, strlen(path));
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        say("%s: no daemon listening (%s); start one with `textnb serve MODEL --socket PATH`", path,
            strerror(errno));
        return FAIL_ERROR;
    }
    struct timeval tv = {TIMEOUT_S, 0};
    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    enum failure f = OK;
    struct buffer in = {0};
    while (connect(sock, (struct sockaddr *)&addr, sizeof addr) < 0) {
        int err = errno;
        if (signalled()) {
            f = report_signal();
            goto done;
        }
        if (err == EINTR)
            continue;
        if (err == EAGAIN || err == EINPROGRESS) { /* its backlog stayed full for the whole timeout */
            say("%s: the daemon is too busy (no connection within %d s)", path, TIMEOUT_S);
        } else {
            say("%s: no daemon listening (%s); start one with `textnb serve MODEL --socket PATH`", path,
                strerror(err));
        }
        f = FAIL_ERROR;
        goto done;
    }
    char request[256];
    int n = snprintf(request, sizeof request, "SPAM %zu", msg->len);
    if (o->spam_cutoff)
        n += snprintf(request + n, sizeof request - (size_t)n, " spam_cutoff=%.17g", spam);
    if (o->ham_cutoff)
        n += snprintf(request + n, sizeof request - (size_t)n, " ham_cutoff=%.17g", ham);
    if (o->max_bytes)
        n += snprintf(request + n, sizeof request - (size_t)n, " max_bytes=%lld", max_bytes);
    if (o->passthrough)
        n += snprintf(request + n, sizeof request - (size_t)n, " headers=1");
    n += snprintf(request + n, sizeof request - (size_t)n, "\n");
    if ((f = send_all(sock, path, request, (size_t)n)) || (f = send_all(sock, path, msg->data, msg->len)))
        goto done;
    size_t line_len;
    if ((f = recv_line(sock, path, &in, &line_len)))
        goto done;
    if (line_len >= 4 && !memcmp(in.data, "ERR ", 4)) {
        say("%.*s", (int)(line_len - 4), in.data + 4);
        f = FAIL_ERROR;
        goto done;
    }
    char shown[64 * 4 + 8];
    bytes_repr(in.data, line_len < 60 ? line_len : 60, shown, sizeof shown);
    long long code, m;
    if (!parse_ok(in.data, line_len, &code, &m)) {
        say("%s: not a textnb daemon (reply %s)", path, shown);
        f = FAIL_ERROR;
        goto done;
    }
    /* the head: m bytes after the line, some of them perhaps already read */
    size_t have = in.len - line_len - 1;
    if (!head_length_possible(m, msg, o->passthrough)) { /* -p would write what is not the message */
        say("%s: not a textnb daemon (reply %s)", path, shown);
        f = FAIL_ERROR;
        goto done;
    }
    r->head = malloc((size_t)m + 1);
    if (!r->head) {
        say("out of memory reading the reply");
        f = FAIL_ERROR;
        goto done;
    }
    size_t take = have < (size_t)m ? have : (size_t)m;
    memcpy(r->head, in.data + line_len + 1, take);
    while (take < (size_t)m) {
        ssize_t got = recv(sock, r->head + take, (size_t)m - take, 0);
        if (got > 0)
            take += (size_t)got;
        if (signalled()) {
            f = report_signal();
            goto done;
        }
        if (got == 0) {
            say("the daemon closed the connection in the middle of its reply");
            f = FAIL_ERROR;
            goto done;
        }
        if (got < 0 && errno != EINTR) {
            say("%s: no reply from the daemon (%s)", path, io_error(errno));
            f = FAIL_ERROR;
            goto done;
        }
    }
    r->head_len = (size_t)m;
    r->code = (int)code;
done:
    free(in.data);
    close(sock);
    return f;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

static int exit_status(enum failure f)
{
    return f == FAIL_INTERRUPT ? EXIT_INTERRUPTED : EXIT_ERROR;
}

/* ---------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    int client = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "--version"))
            return run_python(argc, argv);  /* spamclient.py's NOT_CLIENT */
        if (!strncmp(argv[i], "--socket", 8) && (argv[i][8] == '\0' || argv[i][8] == '='))
            client = 1;
    }
    struct options o = {0};
    double spam = 0, ham = 0;
    long long max_bytes = DEFAULT_MAX_BYTES;
    if (!client || !parse(argc, argv, &o) || (o.spam_cutoff && !probability(o.spam_cutoff, &spam)) ||
        (o.ham_cutoff && !probability(o.ham_cutoff, &ham)) || (o.max_bytes && !size_value(o.max_bytes, &max_bytes)))
        return run_python(argc, argv);

    if (o.exit_zero && !o.passthrough) /* spamclient.EXIT_ZERO_UNUSED: said, the exit status unchanged */
        say("warning: -e has no effect without -p");
    install_handlers();
    standard_fds();
    struct buffer msg = {0};
    struct reply r = {0};
    int written = 0, code;
    enum failure f = read_head(&msg, max_bytes);
    if (!f) {
        size_t i = 0;
        while (i < msg.len && is_space(msg.data[i]))
            i++;
        if (i == msg.len) {
            say("stdin: empty message");
            f = FAIL_ERROR;
        }
    }
    if (!f)
        f = classify(&o, spam, ham, max_bytes, &msg, &r);
    if (!f && o.passthrough) {
        written = 1; /* from here on the message is (being) written: never twice */
        if (!(f = write_all(r.head, r.head_len)) && !(f = rest_of_stdin(1)))
            return o.exit_zero ? 0 : r.code;
    } else if (!f) {
        if (!(f = rest_of_stdin(0)))
            return r.code;
    }
    code = exit_status(f);
    if (o.passthrough) { /* the message as it came, or the rest of it: never lost */
        quiet = 1, caught = 0; /* (the stop signals are ignored now: the copy goes to the end) */
        if (written || !write_all(msg.data, msg.len))
            rest_of_stdin(1);
    }
    return code;
}
