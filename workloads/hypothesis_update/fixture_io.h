// Reading a Monty fixture run: run.json parameters, object graphs and per-step inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

struct RunJson;  // fixture_json.h

struct FixtureRun {
  std::string dir, objects_dir, name, updater;
  UpdaterConfig config;
  std::vector<std::string> graph_names;  // in run.json order
  std::vector<ObjectGraph> graphs;
  std::shared_ptr<const RunJson> run;  // all of run.json, for the recorded per-step scalars
  size_t num_steps = 0;
};

FixtureRun load_fixture_run(const std::string& run_dir, const std::string& objects_dir);

// A fixture file's text and the path that names it in errors.
struct FixtureText {
  std::string path, text;
};
// What load_fixture_run takes from run.json and objects.json, from their text, with the same
// checks (the fuzz target's entry point): the name (empty when run.json has none), updater,
// config, step count and graph names. dir, objects_dir and graphs (the .npy arrays) stay empty.
FixtureRun parse_fixture_json(const FixtureText& run_json, const FixtureText& objects_json);

// The sensed inputs of step `step` for LM 0 (one channel).
StepInput load_step_input(const FixtureRun& run, size_t step);

// Any numeric or bool .npy as float64; BadInput naming the path when it is missing or malformed.
std::vector<double> load_doubles(const std::string& path, std::vector<uint64_t>* shape = nullptr);

std::string step_dir(const FixtureRun& run, size_t step);

}  // namespace weft::hypothesis_update
