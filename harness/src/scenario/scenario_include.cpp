#include "scenario/scenario_include.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <yaml-cpp/depthguard.h>

#include "scenario/path_within.h"
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

// The root of the folder tree of the scenario `main_file`: the nearest folder at or above
// its own holding kIncludeRootMarker, else its own folder (canonical).
fs::path tree_root(const std::string &main_file) {
    std::error_code ec;
    fs::path own = fs::weakly_canonical(fs::absolute(main_file, ec).parent_path(), ec);
    for (fs::path d = own;; d = d.parent_path()) {
        if (fs::is_regular_file(d / kIncludeRootMarker, ec))
            return d;
        if (d == d.root_path() || d.parent_path() == d)
            return own;
    }
}

// Reads the included file `tname` (canonical: `canon`), refusing at the include entry what
// is outside the tree, not a regular file or too large. Nothing of the file's text goes
// into these messages.
std::string read_included(const std::string &tname, const fs::path &canon, const fs::path &root,
                          const std::string &from, int from_line, const std::string &from_path) {
    auto refuse = [&](const std::string &why) { fail(from, from_line, from_path, tname + ": " + why); };
    if (!path_within(canon.parent_path(), root))
        refuse("outside the scenario's folder tree " + root.string() +
               " (an included file must be in it or below it, after symlinks and '..' are resolved)");
    FileText f = read_bounded_file(canon, kIncludeMaxBytes, "an included file");
    if (!f.ok)
        refuse(f.why);
    return f.text;
}

YAML::Node load(const std::string &file, const fs::path &canon, const fs::path &root, const std::string &from,
                int from_line, const std::string &from_path) {
    YAML::Node root_node =
        load_yaml_document(read_included(file, canon, root, from, from_line, from_path), file, true);
    if (!root_node.IsMap())
        fail(file, 1, "", "an included file must be a mapping of scenario keys");
    return root_node;
}

Doc resolve(const YAML::Node &root, const std::string &file, std::vector<std::string> &stack,
            const fs::path &tree) {
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
        fs::path canon_path = fs::canonical(target, ec); // symlinks and '..' resolved
        if (ec)
            fail(file, line_of(node), path, "cannot read the included file " + tname);
        std::string canon = canon_path.string();
        for (const std::string &s : stack)
            if (s == canon)
                fail(file, line_of(node), path, "include cycle: " + tname + " is already being included");
        YAML::Node sub = load(tname, canon_path, tree, file, line_of(node), path);
        stack.push_back(canon);
        Doc d = resolve(sub, tname, stack, tree);
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
    Doc d = resolve(root, file, stack, tree_root(file));
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
