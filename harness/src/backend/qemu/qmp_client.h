// A minimal client for QEMU's machine protocol (QMP), for what qtest cannot do: the removable
// medium of an ide-cd drive (blockdev-open-tray, blockdev-close-tray, blockdev-remove-medium,
// blockdev-change-medium, query-block). QEMU connects to this process (`-qmp unix:PATH`, QEMU
// as the client, like the qtest socket), so there is no start-up race: the socket listens
// before QEMU runs.
//
// The protocol is one JSON object per line. A command's answer is the first line holding
// "return" or "error"; asynchronous events (DEVICE_TRAY_MOVED, ...) before it are skipped.
// Failures while the simulation runs never throw (an exception cannot unwind through the C
// stack): execute() returns false with the reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace satasim::harness {

class QmpClient {
  public:
    QmpClient() = default;
    ~QmpClient();
    QmpClient(const QmpClient &) = delete;
    QmpClient &operator=(const QmpClient &) = delete;

    // Before QEMU starts: listens on work_dir/qmp.sock (or a /tmp path when that is too long
    // for a Unix socket) and returns QEMU's `-qmp` argument. Throws QtestError.
    std::string listen(const std::string &work_dir);
    // After QEMU started: accepts its connection, reads the greeting and leaves negotiation
    // mode (qmp_capabilities). Throws QtestError naming what failed.
    void accept(int timeout_ms = 20000);
    bool connected() const { return fd_ >= 0; }

    // Runs one command: `execute` with `arguments_json` (a JSON object, or empty). True on
    // "return" (the whole answer line in *answer); false on "error" or a lost connection
    // (*why says which, with QEMU's description).
    bool execute(const std::string &command, const std::string &arguments_json, std::string *answer,
                 std::string *why);

  private:
    bool read_line(std::string *line, int timeout_ms, std::string *why);

    int fd_ = -1;
    int listen_fd_ = -1;
    std::string path_;
    std::string in_;
};

// A top-level field of a JSON object text: a string's contents (escapes kept as written), or
// the text of any other value (`true`, `12`, `{...}`); nullopt when the object has no such key.
std::optional<std::string> qmp_field(const std::string &object, const std::string &key);
// The objects of the array a QMP answer returns (`{"return": [ {...}, {...} ]}`), each as its
// text, split at depth one (strings with braces inside are skipped correctly).
std::vector<std::string> qmp_return_objects(const std::string &answer);

} // namespace satasim::harness
