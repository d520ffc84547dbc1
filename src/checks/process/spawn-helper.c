/*
 * lookout-spawn-helper: starts plugin processes on behalf of Lookout, so that the large Node.js
 * process never forks itself (a fork copies its page tables, some milliseconds per check at
 * hundreds of megabytes). Lookout starts one helper and keeps it; the helper reads spawn and kill
 * requests on stdin and writes one answer per finished process on stdout. Built from source with
 * the machine's C compiler by `npm run build` (scripts/build-spawn-helper.mjs).
 *
 * The contract is the one src/checks/process/run-process.ts documents and keeps when no helper is
 * built: no shell, the child leads its own process group, stdin is /dev/null, the environment is
 * exactly the one sent, stdout and stderr are each kept up to a cap and drained past it. When the
 * child exits, the rest of its group is killed before the child is reaped (waitid WNOWAIT), so the
 * group id cannot have been reused; pipes a process outside the group still holds are abandoned
 * 500 ms after the exit. A kill request kills the group of a child not yet reaped, or drops a spawn
 * request still waiting in the helper's queue (under overload, a timed-out check is never started).
 *
 * Wire format, little-endian (Lookout uses the in-process path on a big-endian machine):
 *   request:  u32 length of the rest, u32 id, u8 op (1 spawn, 2 kill), then for spawn:
 *             u32 cap, u32 argc, u32 envc, and NUL-terminated strings: file, argv[argc], env[envc]
 *   answer:   u32 length of the rest, u32 id, u8 kind (1 exited, 2 signaled, 3 spawn error),
 *             i32 value (exit code, signal number, errno), u8 truncated (bit 0 stdout, bit 1 stderr),
 *             u32 stdout length, u32 stderr length, stdout bytes, stderr bytes
 * End of stdin kills every group still running and ends the helper.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OP_SPAWN 1
#define OP_KILL 2
#define END_EXITED 1
#define END_SIGNALED 2
#define END_SPAWN_ERROR 3
#define ABANDON_MS 500
/* Spawns per turn of the loop: between batches the helper reaps and answers, so a burst of requests
 * (a thousand checks falling due at once) cannot hold back the results of those already done. */
#define SPAWNS_PER_TURN 8
#define TAG_STDIN 0xffffffffu
#define TAG_SIGNAL 0xfffffffeu

struct stream {
  int fd; /* -1 once closed */
  char *buf;
  uint32_t len;
  uint8_t truncated;
};

struct job {
  int used;
  uint32_t id;
  pid_t pid; /* 0 once reaped */
  uint32_t cap;
  int end_kind;
  int end_value;
  int64_t abandon_at; /* ms, once reaped with a pipe still open */
  struct stream s[2];
};

static struct job *jobs;
static uint32_t njobs;
static uint32_t live;
static int ep;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void die(const char *what) {
  fprintf(stderr, "lookout-spawn-helper: %s: %s\n", what, strerror(errno));
  exit(1);
}

static void write_all(const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(1, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        /* stdout is blocking; this is only reached if the parent made it non-blocking. */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        continue;
      }
      exit(0); /* Lookout is gone */
    }
    c += w;
    n -= (size_t)w;
  }
}

static void answer(uint32_t id, int kind, int value, uint8_t trunc, const struct stream *out,
                   const struct stream *err) {
  uint32_t olen = out ? out->len : 0, elen = err ? err->len : 0;
  unsigned char h[22];
  uint32_t rest = 18 + olen + elen;
  int32_t v = value;
  memcpy(h, &rest, 4);
  memcpy(h + 4, &id, 4);
  h[8] = (unsigned char)kind;
  memcpy(h + 9, &v, 4);
  h[13] = trunc;
  memcpy(h + 14, &olen, 4);
  memcpy(h + 18, &elen, 4);
  write_all(h, sizeof h);
  if (olen) write_all(out->buf, olen);
  if (elen) write_all(err->buf, elen);
}

static void close_stream(struct stream *s) {
  if (s->fd < 0) return;
  epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
  close(s->fd);
  s->fd = -1;
}

static void maybe_finish(struct job *j) {
  if (j->pid != 0 || j->s[0].fd >= 0 || j->s[1].fd >= 0) return;
  uint8_t trunc = (uint8_t)(j->s[0].truncated | (j->s[1].truncated << 1));
  answer(j->id, j->end_kind, j->end_value, trunc, &j->s[0], &j->s[1]);
  free(j->s[0].buf);
  free(j->s[1].buf);
  memset(j, 0, sizeof *j);
  live--;
}

static void read_stream(struct job *j, int which) {
  struct stream *s = &j->s[which];
  char tmp[65536];
  for (;;) {
    ssize_t r = read(s->fd, tmp, sizeof tmp);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      break; /* treat as end */
    }
    if (r == 0) break;
    uint32_t room = j->cap > s->len ? j->cap - s->len : 0;
    uint32_t take = (uint32_t)r < room ? (uint32_t)r : room;
    if (take < (uint32_t)r) s->truncated = 1;
    if (take > 0) {
      char *nb = realloc(s->buf, s->len + take);
      if (nb == NULL) die("realloc");
      s->buf = nb;
      memcpy(s->buf + s->len, tmp, take);
      s->len += take;
    }
    if ((size_t)r < sizeof tmp) return; /* drained for now; level-triggered epoll calls again */
  }
  close_stream(s);
  maybe_finish(j);
}

static struct job *new_job(void) {
  for (uint32_t i = 0; i < njobs; i++)
    if (!jobs[i].used) return &jobs[i];
  uint32_t n = njobs ? njobs * 2 : 64;
  struct job *nj = realloc(jobs, n * sizeof *nj);
  if (nj == NULL) die("realloc");
  memset(nj + njobs, 0, (n - njobs) * sizeof *nj);
  jobs = nj;
  uint32_t at = njobs;
  njobs = n;
  return &jobs[at];
}

/* The executable for `file`: itself when it names a path, else the first hit in the child's PATH. */
static const char *resolve(const char *file, char **env, char *buf, size_t bufsz) {
  if (strchr(file, '/') != NULL || file[0] == '\0') return file;
  const char *path = "/usr/bin:/bin";
  for (char **e = env; *e; e++)
    if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  const char *p = path;
  while (*p) {
    const char *colon = strchr(p, ':');
    size_t dl = colon ? (size_t)(colon - p) : strlen(p);
    if (dl == 0) {
      if ((size_t)snprintf(buf, bufsz, "%s", file) < bufsz && access(buf, X_OK) == 0) return buf;
    } else if ((size_t)snprintf(buf, bufsz, "%.*s/%s", (int)dl, p, file) < bufsz && access(buf, X_OK) == 0) {
      return buf;
    }
    if (!colon) break;
    p = colon + 1;
  }
  return NULL;
}

static void do_spawn(uint32_t id, const unsigned char *p, uint32_t n) {
  if (n < 12) return;
  uint32_t cap, argc, envc;
  memcpy(&cap, p, 4);
  memcpy(&argc, p + 4, 4);
  memcpy(&envc, p + 8, 4);
  p += 12;
  n -= 12;
  uint32_t total = 1 + argc + envc;
  char **strs = calloc(total + 2, sizeof *strs);
  if (strs == NULL) die("calloc");
  uint32_t k = 0, off = 0;
  while (k < total && off < n) {
    strs[k++] = (char *)p + off;
    const unsigned char *z = memchr(p + off, 0, n - off);
    if (z == NULL) break;
    off = (uint32_t)(z - p) + 1;
  }
  if (k < total) {
    free(strs);
    answer(id, END_SPAWN_ERROR, EINVAL, 0, NULL, NULL);
    return;
  }
  char *file = strs[0];
  char **argv = calloc(argc + 1, sizeof *argv);
  char **envp = calloc(envc + 1, sizeof *envp);
  if (argv == NULL || envp == NULL) die("calloc");
  for (uint32_t i = 0; i < argc; i++) argv[i] = strs[1 + i];
  for (uint32_t i = 0; i < envc; i++) envp[i] = strs[1 + argc + i];

  char pathbuf[4096];
  const char *exe = resolve(file, envp, pathbuf, sizeof pathbuf);
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  int rc = 0;
  pid_t pid = 0;
  if (exe == NULL) {
    rc = ENOENT;
  } else if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    rc = errno;
  } else {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    rc = posix_spawn(&pid, exe, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
  }
  free(argv);
  free(envp);
  free(strs);
  if (out[1] >= 0) close(out[1]);
  if (err[1] >= 0) close(err[1]);
  if (rc != 0) {
    if (out[0] >= 0) close(out[0]);
    if (err[0] >= 0) close(err[0]);
    answer(id, END_SPAWN_ERROR, rc, 0, NULL, NULL);
    return;
  }
  struct job *j = new_job();
  uint32_t slot = (uint32_t)(j - jobs);
  j->used = 1;
  j->id = id;
  j->pid = pid;
  j->cap = cap;
  j->s[0].fd = out[0];
  j->s[1].fd = err[0];
  live++;
  for (int w = 0; w < 2; w++) {
    fcntl(j->s[w].fd, F_SETFL, O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = ((uint64_t)slot << 1) | (uint64_t)w};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, j->s[w].fd, &ev) != 0) die("epoll_ctl");
  }
}

/* Spawn requests read but not started yet, oldest first. */
struct queued {
  struct queued *next;
  uint32_t id;
  uint32_t len;
  unsigned char data[];
};
static struct queued *queue_head, *queue_tail;

static void enqueue_spawn(uint32_t id, const unsigned char *p, uint32_t n) {
  struct queued *q = malloc(sizeof *q + n);
  if (q == NULL) die("malloc");
  q->next = NULL;
  q->id = id;
  q->len = n;
  memcpy(q->data, p, n);
  if (queue_tail) queue_tail->next = q;
  else queue_head = q;
  queue_tail = q;
}

/* Kills the group of a running child; a request still queued is dropped unstarted and answered
 * as killed (Lookout reports the timeout or abort that asked for the kill). */
static void do_kill(uint32_t id) {
  for (uint32_t i = 0; i < njobs; i++)
    if (jobs[i].used && jobs[i].id == id && jobs[i].pid != 0) kill(-jobs[i].pid, SIGKILL);
  for (struct queued **pp = &queue_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
    struct queued *q = *pp;
    if (q->id != id) continue;
    *pp = q->next;
    if (queue_tail == q) queue_tail = prev;
    free(q);
    answer(id, END_SIGNALED, SIGKILL, 0, NULL, NULL);
    return;
  }
}

static void reap(void) {
  for (;;) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0) return;
    pid_t pid = si.si_pid;
    /* Still unreaped, so the group id is ours: whatever the plugin left behind dies with it. */
    kill(-pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    for (uint32_t i = 0; i < njobs; i++) {
      struct job *j = &jobs[i];
      if (!j->used || j->pid != pid) continue;
      j->pid = 0;
      if (WIFEXITED(status)) {
        j->end_kind = END_EXITED;
        j->end_value = WEXITSTATUS(status);
      } else {
        j->end_kind = END_SIGNALED;
        j->end_value = WTERMSIG(status);
      }
      j->abandon_at = now_ms() + ABANDON_MS;
      maybe_finish(j);
      break;
    }
  }
}

static void abandon_due(int64_t now, int *next_ms) {
  for (uint32_t i = 0; i < njobs; i++) {
    struct job *j = &jobs[i];
    if (!j->used || j->pid != 0) continue;
    if (j->abandon_at <= now) {
      close_stream(&j->s[0]);
      close_stream(&j->s[1]);
      maybe_finish(j);
    } else {
      int left = (int)(j->abandon_at - now);
      if (*next_ms < 0 || left < *next_ms) *next_ms = left;
    }
  }
}

/* Whether `p` starts with a whole request. */
static int whole_request(const unsigned char *p, size_t n) {
  uint32_t rest;
  if (n < 9) return 0;
  memcpy(&rest, p, 4);
  return n - 4 >= rest;
}

int main(void) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 0;
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) die("signalfd");
  ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) die("epoll_create1");
  fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_STDIN};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev) != 0) die("epoll_ctl stdin");
  ev.data.u64 = TAG_SIGNAL;
  if (epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) != 0) die("epoll_ctl signalfd");

  size_t cap = 1 << 16, len = 0;
  unsigned char *in = malloc(cap);
  if (in == NULL) die("malloc");
  int eof = 0;
  struct epoll_event evs[256];
  for (;;) {
    /* Whole requests become queued spawns, kills act at once (a queued spawn is dropped). */
    size_t at = 0;
    while (whole_request(in + at, len - at)) {
      uint32_t rest, id;
      memcpy(&rest, in + at, 4);
      memcpy(&id, in + at + 4, 4);
      unsigned char op = in[at + 8];
      if (rest >= 5 && op == OP_SPAWN) enqueue_spawn(id, in + at + 9, rest - 5);
      else if (rest >= 5 && op == OP_KILL) do_kill(id);
      at += 4 + rest;
    }
    if (at > 0) {
      memmove(in, in + at, len - at);
      len -= at;
    }
    if (eof) break;
    /* At most SPAWNS_PER_TURN spawns, then a look at exits and output. */
    for (int k = 0; k < SPAWNS_PER_TURN && queue_head != NULL; k++) {
      struct queued *q = queue_head;
      queue_head = q->next;
      if (queue_head == NULL) queue_tail = NULL;
      do_spawn(q->id, q->data, q->len);
      free(q);
    }
    int more = queue_head != NULL;
    int next = -1;
    abandon_due(now_ms(), &next);
    if (more) next = 0;
    int n = epoll_wait(ep, evs, 256, next);
    if (n < 0) {
      if (errno == EINTR) continue;
      die("epoll_wait");
    }
    for (int e = 0; e < n; e++) {
      uint64_t tag = evs[e].data.u64;
      if (tag == TAG_SIGNAL) {
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) > 0) {
        }
        reap();
      } else if (tag == TAG_STDIN) {
        for (;;) {
          if (cap - len < 65536) {
            cap *= 2;
            in = realloc(in, cap);
            if (in == NULL) die("realloc");
          }
          ssize_t r = read(0, in + len, cap - len);
          if (r < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN) eof = 1;
            break;
          }
          if (r == 0) eof = 1;
          if (r == 0) break;
          len += (size_t)r;
        }
      } else {
        uint32_t slot = (uint32_t)(tag >> 1);
        int which = (int)(tag & 1);
        if (slot < njobs && jobs[slot].used && jobs[slot].s[which].fd >= 0) read_stream(&jobs[slot], which);
      }
    }
  }
  for (uint32_t i = 0; i < njobs; i++)
    if (jobs[i].used && jobs[i].pid != 0) kill(-jobs[i].pid, SIGKILL);
  return 0;
}
