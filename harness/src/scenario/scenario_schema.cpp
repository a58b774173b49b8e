// The JSON Schema recorder (scenario_schema.h).
#include "scenario/scenario_schema.h"

#include <algorithm>
#include <cstdio>

namespace satasim::harness {

namespace {

SchemaRecorder *g_active = nullptr;

// "devices[3].timing" -> "devices[].timing": every element of a list has one schema.
std::string fold_indices(const std::string &path) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
        out.push_back(path[i]);
        if (path[i] == '[') {
            size_t j = path.find(']', i);
            if (j == std::string::npos)
                break;
            i = j - 1;
        }
    }
    return out;
}

std::string quoted(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

std::string child(const std::string &path, const std::string &key) { return path.empty() ? key : path + "." + key; }

// The quantities of units.h: which JSON types a YAML scalar of each reaches tools as.
struct Quantity {
    const char *kind, *types, *text;
};
const Quantity kQuantities[] = {
    {"sectors", "[\"string\", \"integer\"]",
     "a size: a number of 512-byte sectors, or a number with a unit: b, s (sectors), k/KiB m/MiB g/GiB t/TiB "
     "(powers of 1024), kB MB GB TB (powers of 1000); a whole number of sectors"},
    {"bytes", "[\"string\", \"integer\"]",
     "a size: a number of bytes, or a number with a unit: b, s (sectors), k/KiB m/MiB g/GiB t/TiB (powers of "
     "1024), kB MB GB TB (powers of 1000)"},
    {"time", "\"string\"", "a time: a number with a unit (ns, us, ms, s, min), e.g. 1.5ms"},
    {"rate", "\"string\"", "a data rate: a number with a unit (B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s)"},
};

} // namespace

SchemaRecorder *SchemaRecorder::active() { return g_active; }
SchemaRecorder::SchemaRecorder() : previous_(g_active) { g_active = this; }
SchemaRecorder::~SchemaRecorder() { g_active = previous_; }

SchemaRecorder::Node &SchemaRecorder::at(const std::string &path) { return nodes_[fold_indices(path)]; }

void SchemaRecorder::object(const std::string &path, const std::vector<std::string> &allowed) {
    Node &n = at(path);
    n.kinds.insert("object");
    for (const std::string &k : allowed)
        if (std::find(n.keys.begin(), n.keys.end(), k) == n.keys.end())
            n.keys.push_back(k);
}
void SchemaRecorder::array(const std::string &path) { at(path).kinds.insert("array"); }
void SchemaRecorder::integer(const std::string &path, uint64_t lo, uint64_t hi) {
    Node &n = at(path);
    n.kinds.insert("integer");
    n.lo = std::min(n.lo, lo);
    n.hi = std::max(n.hi, hi);
}
void SchemaRecorder::boolean(const std::string &path) { at(path).kinds.insert("boolean"); }
void SchemaRecorder::string(const std::string &path, size_t max_len) {
    Node &n = at(path);
    n.kinds.insert("string");
    n.max_len = std::max(n.max_len, max_len);
}
void SchemaRecorder::enumeration(const std::string &path, const std::vector<std::string> &names) {
    Node &n = at(path);
    n.kinds.insert("enum");
    for (const std::string &s : names)
        if (std::find(n.names.begin(), n.names.end(), s) == n.names.end())
            n.names.push_back(s);
}
void SchemaRecorder::pattern(const std::string &path, const std::string &regex) {
    Node &n = at(path);
    n.kinds.insert("pattern");
    n.pattern = regex;
}
void SchemaRecorder::quantity(const std::string &path, const std::string &what) { at(path).kinds.insert(what); }

void SchemaRecorder::emit(std::string &out, const std::string &path, int indent) const {
    const std::string pad(size_t(indent), ' ');
    auto it = nodes_.find(path);
    if (it == nodes_.end()) { // a key the reader allows whose value no scenario here exercised
        out += "{\"description\": \"any value the reader takes (not exercised by the scenarios the schema was made from)\"}";
        return;
    }
    const Node &n = it->second;
    std::vector<std::string> alts;
    for (const std::string &kind : n.kinds) {
        std::string a;
        if (kind == "object") {
            a = "{\n" + pad + "  \"type\": \"object\",\n" + pad + "  \"additionalProperties\": false,\n" + pad +
                "  \"properties\": {";
            bool first = true;
            for (const std::string &k : n.keys) {
                a += std::string(first ? "" : ",") + "\n" + pad + "    " + quoted(k) + ": ";
                emit(a, child(path, k), indent + 4);
                first = false;
            }
            a += "\n" + pad + "  }\n" + pad + "}";
        } else if (kind == "array") {
            a = "{\"type\": \"array\", \"items\": ";
            emit(a, path + "[]", indent + 2);
            a += "}";
        } else if (kind == "integer") {
            // YAML writes hexadecimal too (0x1f), which reaches JSON tools as a string
            a = "{\"anyOf\": [{\"type\": \"integer\", \"minimum\": " + std::to_string(n.lo) + ", \"maximum\": " +
                std::to_string(n.hi) + "}, {\"type\": \"string\", \"pattern\": \"^0[xX][0-9a-fA-F]+$\"}]}";
        } else if (kind == "boolean") {
            a = "{\"type\": \"boolean\"}";
        } else if (kind == "string") {
            a = "{\"type\": \"string\"" + (n.max_len ? ", \"maxLength\": " + std::to_string(n.max_len) : "") + "}";
        } else if (kind == "pattern") {
            a = "{\"type\": \"string\", \"pattern\": " + quoted(n.pattern) + "}";
        } else if (kind == "enum") {
            a = "{\"enum\": [";
            for (size_t i = 0; i < n.names.size(); ++i)
                a += (i ? ", " : "") + quoted(n.names[i]);
            a += "]}";
        } else {
            for (const Quantity &q : kQuantities)
                if (kind == q.kind)
                    a = std::string("{\"type\": ") + q.types + ", \"description\": " + quoted(q.text) + "}";
        }
        alts.push_back(a);
    }
    if (alts.size() == 1) {
        out += alts[0];
        return;
    }
    out += "{\"anyOf\": [";
    for (size_t i = 0; i < alts.size(); ++i)
        out += (i ? ", " : "") + alts[i];
    out += "]}";
}

std::string SchemaRecorder::json_schema() const {
    std::string out = "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"
                      "  \"$id\": \"satasim-scenario.schema.json\",\n"
                      "  \"title\": \"satasim scenario\",\n"
                      "  \"description\": \"Generated by `satasim schema` from the scenario reader's own key tables "
                      "and value readers (docs/scenario-schema.md); do not edit.\",\n  \"allOf\": [";
    emit(out, "", 2);
    out += "]\n}\n";
    return out;
}

} // namespace satasim::harness
