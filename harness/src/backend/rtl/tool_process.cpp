// The DUT build's tools as programs with an argument vector (tool_process.h).
#include "backend/rtl/tool_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

extern char **environ;

namespace satasim::harness::rtl {

namespace {

std::vector<char *> c_argv(const Argv &argv) {
    std::vector<char *> v;
    for (const std::string &a : argv)
        v.push_back(const_cast<char *>(a.c_str()));
    v.push_back(nullptr);
    return v;
}

int wait_status(pid_t pid) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 127;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 127;
}

// Spawns argv with stdin from /dev/null, stdout onto out_fd and stderr onto err_fd (-1:
// /dev/null); -1 if it cannot start.
pid_t spawn(const Argv &argv, int out_fd, int err_fd) {
    if (argv.empty())
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (err_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char *> av = c_argv(argv);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, av[0], &fa, nullptr, av.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

} // namespace

int run_tool(const Argv &argv, const std::filesystem::path &log) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return 127;
    const pid_t pid = spawn(argv, fd, fd);
    ::close(fd);
    return pid < 0 ? 127 : wait_status(pid);
}

std::string tool_first_line(const Argv &argv) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
        return "";
    const pid_t pid = spawn(argv, p[1], -1);
    ::close(p[1]);
    std::string out;
    char buf[512];
    for (;;) { // read it all, so that the tool never blocks on a full pipe
        const ssize_t n = ::read(p[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (out.size() < 4096)
            out.append(buf, size_t(n));
    }
    ::close(p[0]);
    if (pid < 0 || wait_status(pid) != 0)
        return "";
    out = out.substr(0, out.find('\n'));
    while (!out.empty() && out.back() == '\r')
        out.pop_back();
    return out;
}

std::string find_in_path(const std::string &name) {
    const char *path = std::getenv("PATH");
    std::string rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
    for (size_t at = 0; at <= rest.size();) {
        const size_t colon = std::min(rest.find(':', at), rest.size());
        const std::string dir = rest.substr(at, colon - at);
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        at = colon + 1;
    }
    return "";
}

std::string argv_text(const Argv &argv) {
    std::string s;
    for (const std::string &a : argv) {
        bool plain = !a.empty();
        for (unsigned char c : a)
            if (!(std::isalnum(c) || std::string("-_=+./:,@%").find(char(c)) != std::string::npos))
                plain = false;
        if (!s.empty())
            s += ' ';
        if (plain) {
            s += a;
            continue;
        }
        s += '\'';
        for (char c : a)
            s += c == '\'' ? std::string("'\\''") : std::string(1, c);
        s += '\'';
    }
    return s;
}

} // namespace satasim::harness::rtl
