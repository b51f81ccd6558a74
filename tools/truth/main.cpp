// ds_truth MODEL.json: prints the ground truth of a disk model as JSON (tools/truth/truth.hpp).
#include <cstdio>
#include <iostream>

#include "truth.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ds_truth MODEL.json\n";
    return 2;
  }
  auto t = truth::compute_file(argv[1]);
  if (!t) {
    std::cerr << "ds_truth: " << t.error().message << "\n";
    return 1;
  }
  std::cout << truth::to_json(*t).dump(1) << "\n";
  return 0;
}
