// A client for QEMU's qtest protocol (docs/devel/qtest.rst in QEMU): spawns
// qemu-system-x86_64 with `-accel tcg -S -qtest unix:PATH` (Debian's build has no qtest
// accelerator; -S keeps the vCPU stopped, so nothing but this client touches the machine),
// and speaks the line protocol on the Unix socket.
//
// Requests that return nothing (writel, outl, b64write) are pipelined: they are queued and
// sent, without waiting for their "OK", when the next request needs an answer or flush()
// is called; their acknowledgements are checked as the answers stream back. A failed
// pipelined request is reported by name. Asynchronous "IRQ raise N" / "IRQ lower N" lines
// (after irq_intercept_in) are parsed out of the stream whenever it is read and reported
// through the IRQ callback, in stream order.
//
// Failures never throw: a C++ exception raised while the simulation runs would have to
// unwind through the C stack's frames and the SystemC kernel. The first failure is kept
// (error(): the request that failed, how the QEMU process ended, the tail of its stderr),
// the connection is closed, and every later request does nothing: reads answer 0, waits
// return at once. Callers check ok() after the requests whose answers they rely on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace satasim::harness {

// Thrown by the QEMU machine's setup (never while the simulation runs).
struct QtestError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class QtestClient {
  public:
    using IrqFn = std::function<void(int line, bool level)>;

    QtestClient() = default;
    ~QtestClient(); // kills QEMU if still running
    QtestClient(const QtestClient &) = delete;
    QtestClient &operator=(const QtestClient &) = delete;

    // Starts `qemu` with the qtest arguments plus `args` (the machine), in work_dir (socket
    // and qemu.stderr live there), and waits up to timeout_ms for it to connect; check ok().
    void start(const std::string &qemu, const std::vector<std::string> &args, const std::string &work_dir,
               int timeout_ms = 20000);
    // Asks QEMU to quit, waits for it (then kills it if needed). Safe to call twice.
    void shutdown();
    bool running() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }

    void set_irq_handler(IrqFn fn) { irq_fn_ = std::move(fn); }
    bool irq_level(int line) const;

    // Answered requests (flush the pipeline first).
    uint32_t readl(uint64_t addr);
    uint8_t readb(uint64_t addr);
    uint16_t readw(uint64_t addr);
    uint32_t inl(uint16_t port);
    // Several readl, pipelined: one round trip for all of them.
    std::vector<uint32_t> readl_many(const std::vector<uint64_t> &addrs);
    void read_mem(uint64_t addr, void *dst, size_t len); // b64read
    void irq_intercept_in(const std::string &qom_path);
    void clock_step(uint64_t ns);
    std::string command(const std::string &line); // raw: returns the text after "OK"

    // Pipelined requests.
    void writel(uint64_t addr, uint32_t val);
    void writeb(uint64_t addr, uint8_t val);
    void writew(uint64_t addr, uint16_t val);
    void outl(uint16_t port, uint32_t val);
    void write_mem(uint64_t addr, const void *src, size_t len); // b64write

    // False once anything failed; error() says what, first failure only.
    bool ok() const { return error_.empty(); }
    const std::string &error() const { return error_; }

    // Sends every queued request and collects their acknowledgements.
    void flush();
    // Sends queued requests, then waits up to timeout_ns for stream input (IRQ lines);
    // returns true if any IRQ line arrived (also one among the requests' answers).
    bool poll_async(uint64_t timeout_ns);

    // Statistics.
    uint64_t requests() const { return n_requests_; }
    uint64_t round_trips() const { return n_round_trips_; }

    std::string stderr_tail() const;

  private:
    void queue(std::string line, bool expect_ok_only);
    void send_queued();
    std::string wait_answer(); // flushes, drains acks, returns the next answer line
    std::string next_line(int timeout_ms);
    bool read_some(int timeout_ms);
    bool take_line(std::string *out);
    void fail(const std::string &what); // records the failure and closes the connection

    pid_t pid_ = -1;
    int fd_ = -1;
    int listen_fd_ = -1;
    std::string sock_path_, stderr_path_;
    std::string out_;              // queued, unsent
    std::deque<std::string> acks_; // sent requests whose "OK" has not been read yet
    std::string in_;               // received, unparsed
    std::string error_;            // first failure; empty while all is well
    std::map<int, bool> irq_;
    IrqFn irq_fn_;
    bool irq_seen_ = false;
    uint64_t n_requests_ = 0, n_round_trips_ = 0;
};

} // namespace satasim::harness
