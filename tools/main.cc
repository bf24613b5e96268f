// Copyright 2026 The inflow Authors.
//
// The `inflow` command-line tool.

#include <algorithm>
#include <cstdio>
#include <exception>

#include "inflow/version.h"

#include "command.h"

namespace inflow::tools {

std::vector<CommandInfo>& Commands() {
  static auto* commands = new std::vector<CommandInfo>();  // never destroyed
  return *commands;
}

namespace {

int Main(int argc, char** argv) {
  CLI::App app{
      "inflow: TensorFlow 1.x's queue-and-thread input pipeline for C++, "
      "with byte-compatible files.",
      "inflow"};
  app.set_version_flag("--version", std::string("inflow ") + kVersion);
  app.require_subcommand(0, 1);

  std::vector<CommandInfo>& commands = Commands();
  std::sort(commands.begin(), commands.end(),
            [](const CommandInfo& a, const CommandInfo& b) {
              return a.name < b.name;
            });
  std::vector<std::pair<CLI::App*, std::function<Status()>>> actions;
  for (CommandInfo& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    actions.emplace_back(sub, c.setup(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    // --help and --version are successes; everything else is usage.
    return rc == 0 ? 0 : 2;
  }

  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    Status s;
    try {
      s = action();
    } catch (const std::exception& e) {
      s = InternalError(std::string("uncaught exception: ") + e.what());
    }
    if (!s.ok()) {
      std::fflush(stdout);
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    return 0;
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace inflow::tools

int main(int argc, char** argv) { return inflow::tools::Main(argc, argv); }
