// DiskSim's parameter syntax, by recursive descent over the text (sim/disksim_params.hpp).
// The grammar is DiskSim 4.0's as its shipped files use it; anything else is an error naming
// the file and line rather than a guess.
#include "sim/disksim_params.hpp"

#include <cctype>
#include <charconv>
#include <optional>

namespace ds::sim::disksim {

const Param* Block::find(std::string_view n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

namespace {

// A sourced file that sources itself must end; DiskSim's own nest two deep.
constexpr int kMaxSourceDepth = 8;
// Lists and blocks nest a few levels in DiskSim's files; a bound keeps hostile input from
// exhausting the stack.
constexpr int kMaxNesting = 32;

bool is_special(char c) { return c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == '=' || c == '#'; }

class Parser {
 public:
  Parser(std::string_view text, std::string file, const FileLoader& load, int depth)
      : t_(text), file_(std::move(file)), load_(load), depth_(depth) {}

  std::optional<Error> file(ParamFile& out) {
    for (;;) {
      skip();
      if (eof()) return std::nullopt;
      const int line = line_;
      std::string w = word();
      if (w.empty()) return fail("expected a block, `source`, `instantiate` or `topology`");
      if (w == "source") {
        auto e = source_statement(out);
        if (e) return e;
      } else if (w == "instantiate") {
        auto e = instantiate(out);
        if (e) return e;
      } else if (w == "topology") {
        TopologyNode n;
        if (auto e = topology(n, 0)) return e;
        out.topology.push_back(std::move(n));
      } else {
        Block b;
        b.type = w;
        b.file = file_;
        b.line = line;
        skip();
        b.name = word();
        if (b.name.empty()) return fail("block `" + w + "` needs a name");
        skip();
        if (!take('{')) return fail("expected `{` after `" + w + " " + b.name + "`");
        if (auto e = params(b, 0)) return e;
        out.blocks.push_back(std::move(b));
      }
    }
  }

 private:
  std::string_view t_;
  std::string file_;
  const FileLoader& load_;
  int depth_;
  std::size_t p_ = 0;
  int line_ = 1;

  bool eof() const { return p_ >= t_.size(); }
  char peek() const { return eof() ? '\0' : t_[p_]; }
  void advance() {
    if (t_[p_] == '\n') ++line_;
    ++p_;
  }
  bool take(char c) {
    if (peek() != c || eof()) return false;
    advance();
    return true;
  }
  // Spaces, newlines and `#` comments (to the end of the line).
  void skip() {
    while (!eof()) {
      if (std::isspace(static_cast<unsigned char>(peek()))) advance();
      else if (peek() == '#') {
        while (!eof() && peek() != '\n') advance();
      } else break;
    }
  }
  std::string word() {
    std::string w;
    while (!eof() && !std::isspace(static_cast<unsigned char>(peek())) && !is_special(peek())) {
      w += peek();
      advance();
    }
    return w;
  }
  Error fail(const std::string& what) const { return make_error(file_ + ":" + std::to_string(line_) + ": " + what); }

  Expected<ParamFile> sourced(const std::string& name) {
    if (depth_ >= kMaxSourceDepth) return fail("`source " + name + "`: sourced files nest too deep (a loop?)");
    auto text = load_(name);
    if (!text) return fail("`source " + name + "`: " + text.error().message);
    ParamFile f;
    Parser sub(*text, name, load_, depth_ + 1);
    if (auto e = sub.file(f)) return *e;
    return f;
  }

  std::optional<Error> source_statement(ParamFile& out) {
    skip();
    std::string name = word();
    if (name.empty()) return fail("`source` needs a file name");
    auto f = sourced(name);
    if (!f) return f.error();
    for (auto& b : f->blocks) out.blocks.push_back(std::move(b));
    for (auto& [k, v] : f->instances) out.instances[k] = v;
    for (auto& n : f->topology) out.topology.push_back(std::move(n));
    return std::nullopt;
  }

  std::optional<Error> instantiate(ParamFile& out) {
    skip();
    if (!take('[')) return fail("expected `[` after `instantiate`");
    std::vector<std::string> names;
    for (;;) {
      skip();
      if (take(']')) break;
      if (eof()) return fail("unterminated `instantiate [` list");
      std::string n = word();
      if (n.empty()) return fail("expected an instance name in `instantiate [ ... ]`");
      names.push_back(n);
      skip();
      take(',');
    }
    skip();
    if (word() != "as") return fail("expected `as SPEC` after `instantiate [ ... ]`");
    skip();
    std::string spec = word();
    if (spec.empty()) return fail("`instantiate ... as` needs a spec name");
    for (const auto& n : names) out.instances[n] = spec;
    return std::nullopt;
  }

  std::optional<Error> topology(TopologyNode& n, int nest) {
    if (nest > kMaxNesting) return fail("the topology nests too deep");
    skip();
    n.type = word();
    skip();
    n.name = word();
    if (n.type.empty() || n.name.empty()) return fail("expected `TYPE NAME [` in the topology");
    skip();
    if (!take('[')) return fail("expected `[` after `" + n.type + " " + n.name + "` in the topology");
    for (;;) {
      skip();
      if (take(']')) return std::nullopt;
      if (eof()) return fail("unterminated topology entry `" + n.name + "` (missing `]`)");
      if (take(',')) continue;
      TopologyNode c;
      if (auto e = topology(c, nest + 1)) return e;
      n.children.push_back(std::move(c));
    }
  }

  // `name = value` pairs up to the closing `}` (the `{` already taken).
  std::optional<Error> params(Block& b, int nest) {
    if (nest > kMaxNesting) return fail("blocks nest too deep");
    const int opened = line_;
    for (;;) {
      skip();
      if (eof())
        return fail("block `" + b.type + (b.name.empty() ? "" : " " + b.name) + "` opened at line " +
                    std::to_string(opened) + " has no closing `}`");
      if (take('}')) return std::nullopt;
      if (take(',')) continue;
      Param p;
      while (!eof() && peek() != '=' && peek() != '\n' && !is_special(peek())) {
        p.name += peek();
        advance();
      }
      while (!p.name.empty() && std::isspace(static_cast<unsigned char>(p.name.back()))) p.name.pop_back();
      if (eof())  // a file cut inside the block: say so, not that the name is odd
        return fail("block `" + b.type + (b.name.empty() ? "" : " " + b.name) + "` opened at line " +
                    std::to_string(opened) + " has no closing `}`");
      if (p.name.empty() || !take('='))
        return fail("expected `name = value` in block `" + b.type + (b.name.empty() ? "" : " " + b.name) + "`");
      if (auto e = value(p.value, nest)) return e;
      b.params.push_back(std::move(p));
      skip();
      if (!take(',') && peek() != '}' && !eof()) return fail("expected `,` or `}` after `" + b.params.back().name + "`");
    }
  }

  std::optional<Error> value(Value& v, int nest) {
    if (nest > kMaxNesting) return fail("values nest too deep");
    skip();
    v.file = file_;
    v.line = line_;
    if (take('[')) {
      v.kind = Value::Kind::list;
      for (;;) {
        skip();
        if (take(']')) return std::nullopt;
        if (eof()) return fail("list opened at line " + std::to_string(v.line) + " has no closing `]`");
        if (take(',')) continue;
        Value item;
        if (auto e = value(item, nest + 1)) return e;
        v.items.push_back(std::move(item));
      }
    }
    std::string w = word();
    if (w.empty()) return fail("expected a value");
    if (w == "source") {  // `Model = source FILE`: the file's one block is the value
      skip();
      std::string name = word();
      if (name.empty()) return fail("`source` needs a file name");
      auto f = sourced(name);
      if (!f) return f.error();
      if (f->blocks.size() != 1) return fail("`source " + name + "` as a value must hold exactly one block");
      v.kind = Value::Kind::block;
      v.block = std::make_shared<Block>(std::move(f->blocks.front()));
      return std::nullopt;
    }
    skip();
    if (take('{')) {  // `Scheduler = disksim_ioqueue { ... }`
      v.kind = Value::Kind::block;
      v.block = std::make_shared<Block>();
      v.block->type = w;
      v.block->file = file_;
      v.block->line = v.line;
      return params(*v.block, nest + 1);
    }
    v.word = w;
    double d = 0;
    const char* end = w.data() + w.size();
    auto [ptr, ec] = std::from_chars(w.data(), end, d);
    if (ec == std::errc() && ptr == end) {
      v.kind = Value::Kind::number;
      v.number = d;
    } else {
      v.kind = Value::Kind::word;
    }
    return std::nullopt;
  }
};

}  // namespace

Expected<ParamFile> parse_params(std::string_view text, const std::string& file, const FileLoader& load) {
  ParamFile out;
  Parser p(text, file, load, 0);
  if (auto e = p.file(out)) return *e;
  return out;
}

}  // namespace ds::sim::disksim
