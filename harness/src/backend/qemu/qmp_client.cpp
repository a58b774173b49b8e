#include "backend/qemu/qmp_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "backend/qemu/qtest_client.h" // QtestError

namespace satasim::harness {

namespace {

constexpr int kAnswerTimeoutMs = 20000;

int64_t qmp_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// The end of the JSON value starting at i (one past it): a string, an object or array
// (brackets counted outside strings), or a bare token (number, true, false, null).
size_t value_end(const std::string &s, size_t i) {
    if (i >= s.size())
        return s.size();
    if (s[i] == '"') {
        for (size_t j = i + 1; j < s.size(); ++j) {
            if (s[j] == '\\')
                ++j;
            else if (s[j] == '"')
                return j + 1;
        }
        return s.size();
    }
    if (s[i] == '{' || s[i] == '[') {
        int depth = 0;
        for (size_t j = i; j < s.size(); ++j) {
            if (s[j] == '"') {
                j = value_end(s, j) - 1;
                continue;
            }
            if (s[j] == '{' || s[j] == '[')
                ++depth;
            else if ((s[j] == '}' || s[j] == ']') && --depth == 0)
                return j + 1;
        }
        return s.size();
    }
    size_t j = i;
    while (j < s.size() && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ')
        ++j;
    return j;
}

size_t skip_space(const std::string &s, size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
    return i;
}

} // namespace

std::optional<std::string> qmp_field(const std::string &o, const std::string &key) {
    size_t i = skip_space(o, 0);
    if (i >= o.size() || o[i] != '{')
        return std::nullopt;
    ++i;
    for (;;) {
        i = skip_space(o, i);
        if (i >= o.size() || o[i] != '"')
            return std::nullopt;
        const size_t kend = value_end(o, i);
        const std::string k = o.substr(i + 1, kend - i - 2);
        i = skip_space(o, kend);
        if (i >= o.size() || o[i] != ':')
            return std::nullopt;
        i = skip_space(o, i + 1);
        const size_t vend = value_end(o, i);
        if (k == key)
            return o[i] == '"' ? o.substr(i + 1, vend - i - 2) : o.substr(i, vend - i);
        i = skip_space(o, vend);
        if (i >= o.size() || o[i] != ',')
            return std::nullopt;
        ++i;
    }
}

std::vector<std::string> qmp_return_objects(const std::string &answer) {
    std::vector<std::string> out;
    const std::optional<std::string> arr = qmp_field(answer, "return");
    if (!arr || arr->empty() || (*arr)[0] != '[')
        return out;
    const std::string &a = *arr;
    size_t i = 1;
    for (;;) {
        i = skip_space(a, i);
        if (i >= a.size() || a[i] != '{')
            return out;
        const size_t end = value_end(a, i);
        out.push_back(a.substr(i, end - i));
        i = skip_space(a, end);
        if (i >= a.size() || a[i] != ',')
            return out;
        ++i;
    }
}

QmpClient::~QmpClient() {
    if (fd_ >= 0)
        ::close(fd_);
    if (listen_fd_ >= 0)
        ::close(listen_fd_);
    if (!path_.empty())
        ::unlink(path_.c_str());
}

std::string QmpClient::listen(const std::string &work_dir) {
    path_ = work_dir + "/qmp.sock";
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (path_.size() >= sizeof sa.sun_path) // Unix socket paths are short: fall back to /tmp
        path_ = "/tmp/satasim-qmp-" + std::to_string(getpid()) + ".sock";
    ::unlink(path_.c_str());
    std::strncpy(sa.sun_path, path_.c_str(), sizeof sa.sun_path - 1);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
        ::listen(listen_fd_, 1) != 0)
        throw QtestError("qemu/qmp: cannot listen on " + path_ + ": " + std::strerror(errno));
    return "unix:" + path_;
}

void QmpClient::accept(int timeout_ms) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    if (::poll(&pfd, 1, timeout_ms) <= 0)
        throw QtestError("qemu/qmp: QEMU did not connect to the QMP socket " + path_ + " within " +
                         std::to_string(timeout_ms) + " ms");
    fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listen_fd_);
    listen_fd_ = -1;
    ::unlink(path_.c_str());
    path_.clear();
    if (fd_ < 0)
        throw QtestError(std::string("qemu/qmp: accept on the QMP socket: ") + std::strerror(errno));
    std::string greeting, why, answer;
    if (!read_line(&greeting, timeout_ms, &why) || greeting.find("\"QMP\"") == std::string::npos)
        throw QtestError("qemu/qmp: no QMP greeting from QEMU" + (why.empty() ? ": got " + greeting : ": " + why));
    if (!execute("qmp_capabilities", "", &answer, &why))
        throw QtestError("qemu/qmp: qmp_capabilities failed: " + why);
}

bool QmpClient::read_line(std::string *line, int timeout_ms, std::string *why) {
    const int64_t deadline = qmp_now_ms() + timeout_ms;
    for (;;) {
        const size_t nl = in_.find('\n');
        if (nl != std::string::npos) {
            *line = in_.substr(0, nl);
            in_.erase(0, nl + 1);
            return true;
        }
        const int64_t left = deadline - qmp_now_ms();
        pollfd pfd{fd_, POLLIN, 0};
        const int r = left > 0 ? ::poll(&pfd, 1, int(left)) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            *why = r == 0 ? "no answer from QEMU's QMP within " + std::to_string(timeout_ms) + " ms"
                          : std::string("poll on the QMP socket: ") + std::strerror(errno);
            return false;
        }
        char buf[4096];
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *why = n == 0 ? "QEMU closed the QMP connection" : std::string("read on the QMP socket: ") + std::strerror(errno);
            return false;
        }
        in_.append(buf, size_t(n));
    }
}

bool QmpClient::execute(const std::string &command, const std::string &arguments_json, std::string *answer,
                        std::string *why) {
    if (fd_ < 0) {
        *why = "no QMP connection";
        return false;
    }
    std::string req = "{\"execute\": \"" + command + "\"";
    if (!arguments_json.empty())
        req += ", \"arguments\": " + arguments_json;
    req += "}\n";
    for (size_t off = 0; off < req.size();) {
        const ssize_t n = ::write(fd_, req.data() + off, req.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *why = std::string("write on the QMP socket: ") + std::strerror(errno);
            return false;
        }
        off += size_t(n);
    }
    for (;;) {
        std::string line;
        if (!read_line(&line, kAnswerTimeoutMs, why))
            return false;
        if (qmp_field(line, "return")) {
            *answer = line;
            return true;
        }
        if (auto err = qmp_field(line, "error")) {
            const std::optional<std::string> desc = qmp_field(*err, "desc");
            *why = command + ": " + (desc ? *desc : *err);
            return false;
        }
        // an event (or anything else): not this command's answer
    }
}

} // namespace satasim::harness
