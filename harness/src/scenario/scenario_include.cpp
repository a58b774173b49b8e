#include "scenario/scenario_include.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "scenario/scenario_parser.h"

namespace fs = std::filesystem;

namespace satasim::harness {

namespace {

int line_of(const YAML::Node &n) {
    YAML::Mark m = n.Mark();
    return m.line >= 0 ? m.line + 1 : 1;
}

[[noreturn]] void fail(const std::string &file, int line, const std::string &path, const std::string &msg) {
    throw ScenarioError(file + ":" + std::to_string(line) + ": " + (path.empty() ? "" : path + ": ") + msg);
}

using Origins = std::map<std::string, std::string>;

// Every map key path under `node` (prefix = its own path) comes from `file`.
void tag(const YAML::Node &node, const std::string &prefix, const std::string &file, Origins &o) {
    if (!node.IsMap())
        return;
    for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar())
            continue;
        std::string p = prefix.empty() ? it->first.Scalar() : prefix + "." + it->first.Scalar();
        o[p] = file;
        tag(it->second, p, file, o);
    }
}

void copy_under(const Origins &from, const std::string &p, Origins &to) {
    for (auto it = from.lower_bound(p); it != from.end() && it->first.compare(0, p.size(), p) == 0; ++it)
        if (it->first.size() == p.size() || it->first[p.size()] == '.')
            to[it->first] = it->second;
}

struct Doc {
    YAML::Node root;
    Origins origin;
};

// base under over: over wins per key, maps merge deep. `skip_include` drops over's include key.
YAML::Node merge(const YAML::Node &base, const Origins &bo, const YAML::Node &over, const Origins &oo,
                 const std::string &prefix, Origins &out_o, bool skip_include) {
    YAML::Node out(YAML::NodeType::Map);
    std::map<std::string, std::pair<YAML::Node, YAML::Node>> over_keys; // name -> key, value
    for (auto it = over.begin(); it != over.end(); ++it)
        if (it->first.IsScalar() && !(skip_include && it->first.Scalar() == "include"))
            over_keys[it->first.Scalar()] = {YAML::Node(it->first), YAML::Node(it->second)};
    std::map<std::string, bool> done;
    for (auto it = base.begin(); it != base.end(); ++it) {
        std::string k = it->first.Scalar();
        std::string p = prefix.empty() ? k : prefix + "." + k;
        auto o = over_keys.find(k);
        if (o == over_keys.end()) {
            out.force_insert(YAML::Node(it->first), YAML::Node(it->second));
            copy_under(bo, p, out_o);
        } else if (it->second.IsMap() && o->second.second.IsMap()) {
            out.force_insert(o->second.first, merge(it->second, bo, o->second.second, oo, p, out_o, false));
            out_o[p] = oo.count(p) ? oo.at(p) : bo.at(p);
        } else {
            out.force_insert(o->second.first, o->second.second);
            copy_under(oo, p, out_o);
        }
        done[k] = true;
    }
    for (auto &[k, kv] : over_keys)
        if (!done.count(k)) {
            out.force_insert(kv.first, kv.second);
            copy_under(oo, prefix.empty() ? k : prefix + "." + k, out_o);
        }
    return out;
}

YAML::Node load(const std::string &file, const std::string &from, int from_line, const std::string &from_path) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        fail(from, from_line, from_path, "cannot read the included file " + file);
    std::ostringstream ss;
    ss << in.rdbuf();
    YAML::Node root;
    try {
        root = YAML::Load(ss.str());
    } catch (const YAML::Exception &e) {
        fail(file, e.mark.line >= 0 ? e.mark.line + 1 : 1, "", "YAML syntax error: " + e.msg);
    }
    if (!root.IsMap())
        fail(file, 1, "", "an included file must be a mapping of scenario keys");
    return root;
}

Doc resolve(const YAML::Node &root, const std::string &file, std::vector<std::string> &stack) {
    Doc own;
    own.root = root;
    tag(root, "", file, own.origin);
    own.origin.erase("include");
    for (auto it = own.origin.begin(); it != own.origin.end();)
        it = it->first.rfind("include.", 0) == 0 ? own.origin.erase(it) : std::next(it);
    YAML::Node inc = root["include"];
    if (!inc)
        return own;
    std::vector<std::pair<std::string, YAML::Node>> entries;
    if (inc.IsScalar())
        entries.push_back({"include", inc});
    else if (inc.IsSequence())
        for (size_t i = 0; i < inc.size(); ++i)
            entries.push_back({"include[" + std::to_string(i) + "]", inc[i]});
    else
        fail(file, line_of(inc), "include", "expected a file name or a list of file names");
    Doc acc;
    acc.root = YAML::Node(YAML::NodeType::Map);
    for (auto &[path, node] : entries) {
        if (!node.IsScalar() || node.Scalar().empty())
            fail(file, line_of(node), path, "expected a file name (relative to this file)");
        fs::path target = fs::path(file).parent_path() / node.Scalar();
        std::string tname = target.lexically_normal().string();
        std::error_code ec;
        std::string canon = fs::weakly_canonical(target, ec).string();
        for (const std::string &s : stack)
            if (s == canon)
                fail(file, line_of(node), path, "include cycle: " + tname + " is already being included");
        YAML::Node sub = load(tname, file, line_of(node), path);
        stack.push_back(canon);
        Doc d = resolve(sub, tname, stack);
        stack.pop_back();
        Origins merged;
        acc.root = merge(acc.root, acc.origin, d.root, d.origin, "", merged, false);
        acc.origin = merged;
    }
    Doc out;
    out.root = merge(acc.root, acc.origin, root, own.origin, "", out.origin, true);
    return out;
}

} // namespace

IncludeResult resolve_includes(const YAML::Node &root, const std::string &file) {
    IncludeResult r;
    if (!root.IsMap() || !root["include"]) {
        r.root = root;
        return r;
    }
    std::error_code ec;
    std::vector<std::string> stack{fs::weakly_canonical(fs::path(file), ec).string()};
    Doc d = resolve(root, file, stack);
    r.root = d.root;
    r.origin = d.origin;
    return r;
}

std::string origin_file(const IncludeResult &r, const std::string &path, const std::string &main) {
    if (r.origin.empty())
        return main;
    for (size_t end = path.size();;) {
        std::string p = path.substr(0, end);
        auto it = r.origin.find(p);
        if (it != r.origin.end())
            return it->second;
        size_t cut = p.find_last_of(".[");
        if (cut == std::string::npos || cut == 0)
            return main;
        end = cut;
    }
}

} // namespace satasim::harness
