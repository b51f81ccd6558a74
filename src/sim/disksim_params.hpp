// DiskSim's parameter-file syntax (the .parv / .diskspecs / .model files of DiskSim 4.0), read
// into a tree: `TYPE NAME { key = value, ... }` blocks whose values are numbers, words, lists
// `[ ... ]`, nested blocks `TYPE { ... }` or `source FILE` (a file holding one block);
// `source FILE` statements; `instantiate [ names ] as SPEC`; and the `topology` tree. Only the
// syntax: what the parameters mean is sim/disksim_import.hpp's business. Every value keeps the
// file and line it came from, so that whoever reads it can say where a bad one is.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::sim::disksim {

// The text of a file named in a `source` directive (or a seek curve), by the name as written.
// The caller decides what it is relative to (the importer: the .parv's folder); tests and the
// fuzz harness hand in memory.
using FileLoader = std::function<Expected<std::string>(const std::string& name)>;

struct Block;

struct Value {
  enum class Kind { number, word, list, block };
  Kind kind = Kind::word;
  double number = 0;
  std::string word;            // kind word (and the text of a number)
  std::vector<Value> items;    // kind list
  std::shared_ptr<Block> block;  // kind block
  std::string file;
  int line = 0;
  std::string where() const { return file + ":" + std::to_string(line); }
};

struct Param {
  std::string name;  // as written, inner spaces kept ("Segment size (in blks)")
  Value value;
};

struct Block {
  std::string type;  // "disksim_disk", "dm_layout_g1_zone", ...
  std::string name;  // empty for a block given as a value
  std::vector<Param> params;
  std::string file;
  int line = 0;
  const Param* find(std::string_view name) const;
};

struct TopologyNode {
  std::string type, name;
  std::vector<TopologyNode> children;
};

struct ParamFile {
  std::vector<Block> blocks;                       // top-level blocks, sourced files' included
  std::map<std::string, std::string> instances;    // instance name -> spec (block) name
  std::vector<TopologyNode> topology;
};

// Parse `text` (named `file` in messages). `source` directives and `source FILE` values are read
// through `load`. Errors say "FILE:LINE: what".
Expected<ParamFile> parse_params(std::string_view text, const std::string& file, const FileLoader& load);

}  // namespace ds::sim::disksim
