// Bounded reading of YAML files (yaml_load.h).
#include "scenario/yaml_load.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "scenario/scenario_parser.h"

namespace satasim::harness {

namespace {

[[noreturn]] void fail_at(const std::string &file, int line, const std::string &msg) {
    throw ScenarioError(file + ":" + std::to_string(line > 0 ? line : 1) + ": " + msg);
}

int line_of(const YAML::Mark &m) { return m.line >= 0 ? m.line + 1 : 1; }

// Takes a document's events and keeps only where the first one was.
class FirstMark : public YAML::EventHandler {
  public:
    int line = 0;
    void OnDocumentStart(const YAML::Mark &m) override { note(m); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &m, YAML::anchor_t) override { note(m); }
    void OnAlias(const YAML::Mark &m, YAML::anchor_t) override { note(m); }
    void OnScalar(const YAML::Mark &m, const std::string &, YAML::anchor_t, const std::string &) override { note(m); }
    void OnSequenceStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override {
        note(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark &m, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override {
        note(m);
    }
    void OnMapEnd() override {}

  private:
    void note(const YAML::Mark &m) {
        if (!line)
            line = line_of(m);
    }
};

// The line of the `---` that starts the second document, or 0 (a stray token yaml-cpp
// takes as the start of an empty document has none).
int second_separator_line(const std::string &text) {
    bool content_seen = false;
    int n = 1;
    for (size_t at = 0; at < text.size(); ++n) {
        const size_t eol = text.find('\n', at);
        const std::string ln = text.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
        if (ln.compare(0, 3, "---") == 0 && (ln.size() == 3 || ln[3] == ' ' || ln[3] == '\t' || ln[3] == '\r')) {
            if (content_seen)
                return n;
            content_seen = true; // a `---` before any content opens the first document
        } else if (!ln.empty() && ln[0] != '#' && ln[0] != ' ' && ln[0] != '%' && ln[0] != '\r') {
            content_seen = true;
        }
        if (eol == std::string::npos)
            break;
        at = eol + 1;
    }
    return 0;
}

// Counts the values under `n` with aliases expanded, stopping at `budget`: true if there are
// at most `budget`. Depth is bounded by yaml-cpp's own limit (kYamlDepthLimit).
bool within_values(const YAML::Node &n, size_t &budget) {
    if (budget == 0)
        return false;
    --budget;
    if (n.IsSequence()) {
        for (const YAML::Node &e : n)
            if (!within_values(e, budget))
                return false;
    } else if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it)
            if (!within_values(it->first, budget) || !within_values(it->second, budget))
                return false;
    }
    return true;
}

} // namespace

FileText read_bounded_file(const std::filesystem::path &path, size_t max_bytes, const std::string &what) {
    FileText r;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) { // refused unopened: a device's open may act
        r.why = "not a regular file (" + what + " cannot be a device, FIFO, socket or folder)";
        return r;
    }
    // O_NONBLOCK: should it have become a FIFO since, the open does not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        r.why = "cannot read " + what + " (" + std::strerror(errno) + ")";
        return r;
    }
    const auto too_large = [&](uint64_t size) {
        r.why = "too large (" + (size ? std::to_string(size) + " bytes; " : std::string("more than that; ")) + what +
                " may have at most " + std::to_string(max_bytes) + " bytes)";
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        r.why = "not a regular file (" + what + " cannot be a device, FIFO, socket or folder)";
        return r;
    }
    if (uint64_t(st.st_size) > max_bytes) {
        ::close(fd);
        too_large(uint64_t(st.st_size));
        return r;
    }
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ::close(fd);
            r.why = "cannot read " + what + " (" + std::strerror(errno) + ")";
            return r;
        }
        if (n == 0)
            break;
        r.text.append(buf, size_t(n));
        if (r.text.size() > max_bytes) { // it grew while being read
            ::close(fd);
            r.text.clear();
            too_large(0);
            return r;
        }
    }
    ::close(fd);
    r.ok = true;
    return r;
}

YAML::Node load_yaml_document(const std::string &text, const std::string &file, bool other_errors_as_syntax,
                              const std::string &what) {
    YAML::Node first;
    int second_line = 0;
    bool second = false;
    try {
        first = YAML::Load(text); // the first document only
        // Is there another? Events only, at most two documents' worth: the second is
        // never built, and a parser that stops making progress cannot loop here.
        std::istringstream in(text);
        YAML::Parser parser(in);
        FirstMark skip, next;
        if (parser.HandleNextDocument(skip) && parser.HandleNextDocument(next)) {
            second = true;
            second_line = next.line;
        }
    } catch (const YAML::DeepRecursion &e) {
        fail_at(file, line_of(e.mark),
                "YAML nested too deeply (limit " + std::to_string(kYamlDepthLimit) + " levels of lists and mappings)");
    } catch (const YAML::ParserException &e) {
        fail_at(file, line_of(e.mark), "YAML syntax error: " + e.msg);
    } catch (const YAML::Exception &e) {
        fail_at(file, line_of(e.mark),
                other_errors_as_syntax ? "YAML syntax error: " + e.msg : std::string("YAML error: ") + e.what());
    }
    if (size_t budget = kYamlMaxValues; !within_values(first, budget))
        fail_at(file, 1, "YAML holds more than " + std::to_string(kYamlMaxValues) +
                             " values with its aliases expanded (aliases of aliases?): refused unread");
    if (second) {
        if (const int dash = second_separator_line(text))
            fail_at(file, dash, "a second YAML document starts here: " + what + " is one document (no second '---')");
        fail_at(file, second_line,
                "YAML syntax error: content outside the document (a stray ',', ']' or '}' at the top level?)");
    }
    return first;
}

} // namespace satasim::harness
