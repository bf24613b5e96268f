// Copyright 2026 The inflow Authors.
//
// Subcommands of the `inflow` CLI register themselves here, one file each
// (tools/<name>_command.cc), so adding one touches no shared file.
//
// Exit codes: 0 ok; 1 a data or runtime error (stderr gets the Status,
// beginning with its code name, e.g. "DATA_LOSS: ..."); 2 usage.

#ifndef INFLOW_TOOLS_COMMAND_H_
#define INFLOW_TOOLS_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "inflow/core/status.h"

namespace inflow::tools {

// Adds options to `sub` and returns the action run when `sub` is chosen.
using CommandSetup = std::function<std::function<Status()>(CLI::App& sub)>;

struct CommandInfo {
  std::string name;
  std::string description;
  CommandSetup setup;
};

// All registered commands, in name order when read by main().
std::vector<CommandInfo>& Commands();

inline bool RegisterCommand(std::string name, std::string description,
                            CommandSetup setup) {
  Commands().push_back(
      {std::move(name), std::move(description), std::move(setup)});
  return true;
}

}  // namespace inflow::tools

#define INFLOW_REGISTER_COMMAND_CONCAT_(a, b) a##b
#define INFLOW_REGISTER_COMMAND_NAME_(line) \
  INFLOW_REGISTER_COMMAND_CONCAT_(inflow_command_registered_, line)
// INFLOW_REGISTER_COMMAND("records", "Inspect TFRecord files", setup_fn);
#define INFLOW_REGISTER_COMMAND(name, description, ...)                        \
  [[maybe_unused]] static const bool INFLOW_REGISTER_COMMAND_NAME_(__LINE__) = \
      ::inflow::tools::RegisterCommand(name, description, __VA_ARGS__)

#endif  // INFLOW_TOOLS_COMMAND_H_
