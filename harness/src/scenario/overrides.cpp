// Scenario keys set from outside the file (overrides.h).
#include "scenario/overrides.h"

#include <cctype>

#include "scenario/scenario_parser.h"

namespace satasim::harness {

namespace {

// The most points one matrix may have (the runner starts a process for each).
constexpr size_t kMaxMatrixPoints = 4096;

// One step of a key path: a mapping key, or a list index.
struct PathStep {
    std::string key;
    bool is_index = false;
    size_t index = 0;
};

// "devices[0].timing.kind" -> devices, [0], timing, kind; "" if malformed, else why.
std::string split_path(const std::string &path, std::vector<PathStep> *steps) {
    steps->clear();
    size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '[') {
            const size_t close = path.find(']', i);
            if (steps->empty() || close == std::string::npos || close == i + 1)
                return "a list index is [N] after a key";
            PathStep s;
            s.is_index = true;
            for (size_t k = i + 1; k < close; ++k) {
                if (!std::isdigit(static_cast<unsigned char>(path[k])) || close - i > 7)
                    return "a list index is a number";
                s.index = s.index * 10 + size_t(path[k] - '0');
            }
            steps->push_back(s);
            i = close + 1;
            if (i < path.size() && path[i] == '.')
                ++i;
            continue;
        }
        size_t end = i;
        while (end < path.size() && path[end] != '.' && path[end] != '[')
            ++end;
        PathStep s;
        s.key = path.substr(i, end - i);
        for (unsigned char c : s.key)
            if (!std::isalnum(c) && c != '_')
                return "keys are letters, digits and _";
        if (s.key.empty())
            return "an empty key";
        steps->push_back(s);
        i = end < path.size() && path[end] == '.' ? end + 1 : end;
        if (end < path.size() && path[end] == '.' && i == path.size())
            return "the path ends with '.'";
    }
    return steps->empty() ? "an empty key path" : "";
}

[[noreturn]] void fail(const ScenarioOverride &o, const std::string &why) {
    throw ScenarioError("(--set " + o.text() + "): " + why);
}

YAML::Node load_value(const ScenarioOverride &o) {
    try {
        return YAML::Load(o.value);
    } catch (const YAML::Exception &e) {
        fail(o, "the value is not YAML: " + e.msg);
    }
}

} // namespace

std::string parse_override(const std::string &arg, ScenarioOverride *out) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
        return "expected KEY.PATH=VALUE, got '" + arg + "'";
    out->path = arg.substr(0, eq);
    out->value = arg.substr(eq + 1);
    std::vector<PathStep> steps;
    if (std::string why = split_path(out->path, &steps); !why.empty())
        return "'" + out->path + "': " + why;
    if (steps[0].key == "include" || steps[0].key == "matrix")
        return "'" + steps[0].key + "' cannot be set from the command line";
    return "";
}

void apply_overrides(YAML::Node &root, const Overrides &ov) {
    for (const ScenarioOverride &o : ov) {
        std::vector<PathStep> steps;
        if (std::string why = split_path(o.path, &steps); !why.empty())
            fail(o, why);
        if (!root.IsMap())
            fail(o, "the scenario is not a mapping");
        YAML::Node value = load_value(o);
        // Walk to the parent of the last step, making mappings where keys are missing.
        YAML::Node at = root;
        for (size_t i = 0; i + 1 < steps.size(); ++i) {
            const PathStep &s = steps[i];
            YAML::Node next;
            if (s.is_index) {
                if (!at.IsSequence() || s.index >= at.size())
                    fail(o, "no list element [" + std::to_string(s.index) + "] there");
                next = at[s.index];
            } else {
                if (at.IsNull())
                    at = YAML::Node(YAML::NodeType::Map);
                if (!at.IsMap())
                    fail(o, "'" + s.key + "' is inside a value that is not a mapping");
                if (!at[s.key] || at[s.key].IsNull())
                    at[s.key] = YAML::Node(YAML::NodeType::Map);
                next = at[s.key];
            }
            at.reset(next);
        }
        const PathStep &last = steps.back();
        if (last.is_index) {
            if (!at.IsSequence() || last.index > at.size())
                fail(o, "no list element [" + std::to_string(last.index) + "] there");
            if (last.index == at.size())
                at.push_back(value);
            else
                at[last.index] = value;
        } else {
            if (!at.IsMap())
                fail(o, "'" + last.key + "' is inside a value that is not a mapping");
            at[last.key] = value;
        }
    }
}

const ScenarioOverride *override_at(const Overrides &ov, const std::string &path) {
    const ScenarioOverride *found = nullptr;
    for (const ScenarioOverride &o : ov) // the last one given wins, as when applied
        if (path == o.path || (path.rfind(o.path, 0) == 0 && (path[o.path.size()] == '.' || path[o.path.size()] == '[')))
            found = &o;
    return found;
}

std::vector<MatrixAxis> read_matrix(const YAML::Node &root, const std::string &file) {
    std::vector<MatrixAxis> axes;
    if (!root.IsMap() || !root["matrix"])
        return axes;
    const YAML::Node m = root["matrix"];
    const auto line = [](const YAML::Node &n) { return n.Mark().line >= 0 ? n.Mark().line + 1 : 1; };
    const auto bad = [&](const YAML::Node &n, const std::string &path, const std::string &why) {
        throw ScenarioError(file + ":" + std::to_string(line(n)) + ": " + path + ": " + why);
    };
    if (!m.IsMap() || m.size() == 0)
        bad(m, "matrix", "expected a mapping of key path -> list of values ({controller.type: [ahci, sil24], seed: [1, 2]})");
    size_t points = 1;
    for (auto it = m.begin(); it != m.end(); ++it) {
        const YAML::Node k = it->first, v = it->second;
        const std::string path = "matrix." + (k.IsScalar() ? k.Scalar() : std::string("?"));
        ScenarioOverride probe;
        if (!k.IsScalar())
            bad(k, "matrix", "keys are key paths");
        if (std::string why = parse_override(k.Scalar() + "=x", &probe); !why.empty())
            bad(k, path, why);
        if (k.Scalar() == "name")
            bad(k, path, "a point's name is made from its values (the scenario's name and the values, joined by '.')");
        if (!v.IsSequence() || v.size() == 0)
            bad(v, path, "expected a non-empty list of the values the key takes");
        MatrixAxis a;
        a.path = k.Scalar();
        for (const YAML::Node &e : v) {
            YAML::Emitter out;
            out << YAML::Flow << e;
            a.values.push_back(out.c_str());
        }
        points *= a.values.size();
        if (points > kMaxMatrixPoints)
            bad(v, path, "the matrix has more than " + std::to_string(kMaxMatrixPoints) + " points");
        axes.push_back(std::move(a));
    }
    return axes;
}

std::vector<Overrides> matrix_points(const std::vector<MatrixAxis> &axes) {
    std::vector<Overrides> points{{}};
    for (const MatrixAxis &a : axes) {
        std::vector<Overrides> next;
        for (const Overrides &p : points)
            for (const std::string &v : a.values) {
                Overrides q = p;
                q.push_back({a.path, v});
                next.push_back(std::move(q));
            }
        points = std::move(next);
    }
    return points;
}

std::string point_suffix(const Overrides &point) {
    std::string s;
    for (const ScenarioOverride &o : point) {
        std::string v;
        for (unsigned char c : o.value)
            if (std::isalnum(c) || c == '-' || c == '_')
                v.push_back(char(c));
        s += (s.empty() ? "" : ".") + (v.empty() ? std::string("x") : v);
    }
    return s;
}

} // namespace satasim::harness
