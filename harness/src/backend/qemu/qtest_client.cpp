#include "backend/qemu/qtest_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace satasim::harness {

namespace {

const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string b64_encode(const uint8_t *p, size_t n) {
    std::string s;
    s.reserve((n + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8 | p[i + 2];
        s += kB64[v >> 18];
        s += kB64[(v >> 12) & 63];
        s += kB64[(v >> 6) & 63];
        s += kB64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = uint32_t(p[i]) << 16;
        s += kB64[v >> 18];
        s += kB64[(v >> 12) & 63];
        s += "==";
    } else if (n - i == 2) {
        uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8;
        s += kB64[v >> 18];
        s += kB64[(v >> 12) & 63];
        s += kB64[(v >> 6) & 63];
        s += '=';
    }
    return s;
}

int b64_val(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// Decodes into dst (exactly len bytes expected); false on malformed input.
bool b64_decode(const std::string &s, uint8_t *dst, size_t len) {
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        if (c == '=')
            break;
        int v = b64_val(c);
        if (v < 0)
            return false;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o >= len)
                return false;
            dst[o++] = uint8_t(acc >> bits);
        }
    }
    return o == len;
}

std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}

uint64_t now_ms() {
    return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

} // namespace

QtestClient::~QtestClient() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    if (fd_ >= 0)
        ::close(fd_);
    if (listen_fd_ >= 0)
        ::close(listen_fd_);
    if (!sock_path_.empty())
        ::unlink(sock_path_.c_str());
}

std::string QtestClient::stderr_tail() const {
    std::ifstream in(stderr_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    if (s.size() > 800)
        s = "..." + s.substr(s.size() - 800);
    return s;
}

void QtestClient::fail(const std::string &what) {
    if (!error_.empty())
        return; // the first failure is the one that explains the run
    std::string msg = "qemu/qtest: " + what;
    if (pid_ > 0) {
        int st = 0;
        pid_t r = ::waitpid(pid_, &st, WNOHANG);
        // A dying QEMU closes its sockets before it can be reaped: give it a moment, so the
        // failure names how QEMU ended rather than only the broken connection.
        for (int i = 0; r == 0 && i < 200; ++i) {
            ::usleep(10000);
            r = ::waitpid(pid_, &st, WNOHANG);
        }
        if (r == pid_) {
            pid_ = -1;
            if (WIFEXITED(st))
                msg += " (QEMU exited with status " + std::to_string(WEXITSTATUS(st)) + ")";
            else if (WIFSIGNALED(st))
                msg += " (QEMU killed by signal " + std::to_string(WTERMSIG(st)) + ")";
        }
    }
    std::string tail = stderr_tail();
    if (!tail.empty())
        msg += "; QEMU stderr: " + tail;
    error_ = msg;
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    out_.clear();
    acks_.clear();
    in_.clear();
}

void QtestClient::start(const std::string &qemu, const std::vector<std::string> &args, const std::string &work_dir,
                        int timeout_ms) {
    sock_path_ = work_dir + "/qtest.sock";
    stderr_path_ = work_dir + "/qemu.stderr";
    ::unlink(sock_path_.c_str());
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (sock_path_.size() >= sizeof sa.sun_path) {
        // Unix socket paths are short: fall back to /tmp.
        sock_path_ = "/tmp/satasim-qtest-" + std::to_string(getpid()) + ".sock";
        ::unlink(sock_path_.c_str());
    }
    std::strncpy(sa.sun_path, sock_path_.c_str(), sizeof sa.sun_path - 1);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0 ||
        ::listen(listen_fd_, 1) != 0)
        return fail("cannot listen on " + sock_path_ + ": " + std::strerror(errno));

    std::vector<std::string> argv = {qemu,     "-qtest", "unix:" + sock_path_, "-qtest-log", "none", "-accel",
                                     "tcg",    "-S",     "-display",           "none",       "-nodefaults",
                                     "-no-user-config"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_t parent = getpid();
    pid_ = ::fork();
    if (pid_ < 0)
        return fail(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive the scenario process
        if (getppid() != parent)
            _exit(127);
        int efd = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (efd >= 0) {
            dup2(efd, 2);
            dup2(efd, 1);
        }
        int nul = ::open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        std::vector<char *> av;
        for (auto &a : argv)
            av.push_back(const_cast<char *>(a.c_str()));
        av.push_back(nullptr);
        execvp(av[0], av.data());
        std::fprintf(stderr, "cannot execute %s: %s\n", av[0], std::strerror(errno));
        _exit(127);
    }
    uint64_t deadline = now_ms() + uint64_t(timeout_ms);
    for (;;) {
        pollfd pfd{listen_fd_, POLLIN, 0};
        int r = ::poll(&pfd, 1, 100);
        if (r > 0) {
            fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd_ < 0)
                return fail(std::string("accept on the qtest socket: ") + std::strerror(errno));
            break;
        }
        int st;
        if (::waitpid(pid_, &st, WNOHANG) == pid_) {
            pid_ = -1;
            return fail("QEMU (" + qemu + ") exited before connecting to the qtest socket");
        }
        if (now_ms() > deadline)
            return fail("QEMU did not connect to the qtest socket within " + std::to_string(timeout_ms) + " ms");
    }
    ::close(listen_fd_);
    listen_fd_ = -1;
    ::unlink(sock_path_.c_str());
}

void QtestClient::shutdown() {
    if (pid_ <= 0)
        return;
    if (fd_ >= 0) {
        out_.clear();
        acks_.clear();
        ::close(fd_);
        fd_ = -1;
    }
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 200; ++i) {
        if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
            pid_ = -1;
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
}

bool QtestClient::irq_level(int line) const {
    auto it = irq_.find(line);
    return it != irq_.end() && it->second;
}

void QtestClient::queue(std::string line, bool expect_ok_only) {
    if (!ok())
        return;
    if (fd_ < 0)
        return fail("request '" + line + "' after the QEMU connection was closed");
    ++n_requests_;
    out_ += line;
    out_ += '\n';
    if (expect_ok_only) {
        if (line.size() > 60)
            line = line.substr(0, 60) + "...";
        acks_.push_back(std::move(line));
    }
    if (out_.size() > (1u << 20))
        send_queued();
}

void QtestClient::send_queued() {
    size_t off = 0;
    while (ok() && off < out_.size()) {
        ssize_t n = ::send(fd_, out_.data() + off, out_.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += size_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // QEMU's receive side is full: it may be blocked writing answers to us.
            read_some(10);
            continue;
        }
        return fail(std::string("sending requests to QEMU: ") + (n == 0 ? "connection closed" : std::strerror(errno)));
    }
    out_.clear();
}

bool QtestClient::read_some(int timeout_ms) {
    if (!ok())
        return false;
    pollfd pfd{fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, timeout_ms);
    if (r < 0 && errno != EINTR) {
        fail(std::string("poll on the qtest socket: ") + std::strerror(errno));
        return false;
    }
    if (r <= 0)
        return false;
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) {
        fail("QEMU closed the qtest connection");
        return false;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR)
            return false;
        fail(std::string("reading from QEMU: ") + std::strerror(errno));
        return false;
    }
    in_.append(buf, size_t(n));
    return true;
}

// Takes one complete line that is not an IRQ notification (those are dispatched here).
bool QtestClient::take_line(std::string *out) {
    for (;;) {
        size_t nl = in_.find('\n');
        if (nl == std::string::npos)
            return false;
        std::string line = in_.substr(0, nl);
        in_.erase(0, nl + 1);
        if (line.rfind("IRQ ", 0) == 0) {
            bool raise = line.rfind("IRQ raise ", 0) == 0;
            int n = std::atoi(line.c_str() + (raise ? 10 : 10));
            irq_[n] = raise;
            irq_seen_ = true;
            if (irq_fn_)
                irq_fn_(n, raise);
            continue;
        }
        *out = std::move(line);
        return true;
    }
}

std::string QtestClient::next_line(int timeout_ms) {
    std::string line;
    uint64_t deadline = now_ms() + uint64_t(timeout_ms);
    while (!take_line(&line)) {
        if (!ok())
            return {};
        if (now_ms() > deadline) {
            fail("no answer from QEMU within " + std::to_string(timeout_ms) + " ms");
            return {};
        }
        read_some(100);
    }
    return line;
}

std::string QtestClient::wait_answer() {
    send_queued();
    ++n_round_trips_;
    while (ok()) {
        std::string line = next_line(30000);
        if (!ok())
            break;
        if (!acks_.empty()) {
            std::string req = acks_.front();
            acks_.pop_front();
            if (line != "OK")
                fail("request '" + req + "' failed: " + line);
            continue;
        }
        return line;
    }
    return {};
}

void QtestClient::flush() {
    if (acks_.empty() && out_.empty())
        return;
    send_queued();
    ++n_round_trips_;
    while (ok() && !acks_.empty()) {
        std::string line = next_line(30000);
        if (!ok())
            return;
        std::string req = acks_.front();
        acks_.pop_front();
        if (line != "OK")
            fail("request '" + req + "' failed: " + line);
    }
}

bool QtestClient::poll_async(uint64_t timeout_ns) {
    // An IRQ line QEMU sends among the answers to the queued requests (a PxIS or IS write
    // that lowers the line, a PxCI write whose command completes at once) counts too:
    // reset before the flush, or the poller would wait out its slice before applying it.
    irq_seen_ = false;
    flush();
    if (!ok())
        return false;
    std::string line;
    // Anything already buffered.
    if (take_line(&line)) {
        fail("unexpected line from QEMU: " + line);
        return false;
    }
    if (irq_seen_)
        return true;
    pollfd pfd{fd_, POLLIN, 0};
    timespec ts{time_t(timeout_ns / 1000000000ull), long(timeout_ns % 1000000000ull)};
    int r = ::ppoll(&pfd, 1, &ts, nullptr);
    if (r < 0 && errno != EINTR) {
        fail(std::string("poll on the qtest socket: ") + std::strerror(errno));
        return false;
    }
    if (r > 0 && read_some(0) && take_line(&line)) {
        fail("unexpected line from QEMU: " + line);
        return false;
    }
    return irq_seen_;
}

std::string QtestClient::command(const std::string &line) {
    std::string req = line.size() > 60 ? line.substr(0, 60) + "..." : line;
    queue(line, false);
    std::string ans = wait_answer();
    if (!ok())
        return {};
    if (ans.rfind("OK", 0) != 0) {
        fail("request '" + req + "' failed: " + ans);
        return {};
    }
    return ans.size() > 3 ? ans.substr(3) : std::string();
}

uint32_t QtestClient::readl(uint64_t addr) {
    std::string v = command("readl " + hex(addr));
    return uint32_t(std::strtoull(v.c_str(), nullptr, 0));
}

uint8_t QtestClient::readb(uint64_t addr) {
    std::string v = command("readb " + hex(addr));
    return uint8_t(std::strtoull(v.c_str(), nullptr, 0));
}

uint16_t QtestClient::readw(uint64_t addr) {
    std::string v = command("readw " + hex(addr));
    return uint16_t(std::strtoull(v.c_str(), nullptr, 0));
}

std::vector<uint32_t> QtestClient::readl_many(const std::vector<uint64_t> &addrs) {
    for (uint64_t a : addrs)
        queue("readl " + hex(a), false);
    std::vector<uint32_t> out(addrs.size(), 0);
    for (size_t i = 0; i < addrs.size() && ok(); ++i) {
        std::string ans = i == 0 ? wait_answer() : next_line(30000);
        if (!ok())
            break;
        if (ans.rfind("OK ", 0) != 0) {
            fail("request 'readl " + hex(addrs[i]) + "' failed: " + ans);
            break;
        }
        out[i] = uint32_t(std::strtoull(ans.c_str() + 3, nullptr, 0));
    }
    return out;
}

uint32_t QtestClient::inl(uint16_t port) {
    std::string v = command("inl " + hex(port));
    return uint32_t(std::strtoull(v.c_str(), nullptr, 0));
}

void QtestClient::read_mem(uint64_t addr, void *dst, size_t len) {
    if (len == 0)
        return;
    std::string v = command("b64read " + hex(addr) + " " + hex(len));
    if (ok() && !b64_decode(v, static_cast<uint8_t *>(dst), len))
        fail("b64read " + hex(addr) + " " + std::to_string(len) + ": malformed answer");
}

void QtestClient::irq_intercept_in(const std::string &qom_path) { command("irq_intercept_in " + qom_path); }

void QtestClient::clock_step(uint64_t ns) { command("clock_step " + std::to_string(ns)); }

void QtestClient::writel(uint64_t addr, uint32_t val) { queue("writel " + hex(addr) + " " + hex(val), true); }

void QtestClient::writeb(uint64_t addr, uint8_t val) { queue("writeb " + hex(addr) + " " + hex(val), true); }

void QtestClient::writew(uint64_t addr, uint16_t val) { queue("writew " + hex(addr) + " " + hex(val), true); }

void QtestClient::outl(uint16_t port, uint32_t val) { queue("outl " + hex(port) + " " + hex(val), true); }

void QtestClient::write_mem(uint64_t addr, const void *src, size_t len) {
    if (len == 0)
        return;
    queue("b64write " + hex(addr) + " " + hex(len) + " " + b64_encode(static_cast<const uint8_t *>(src), len),
          true);
}

} // namespace satasim::harness
