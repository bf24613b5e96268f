// Copyright 2026 The inflow Authors.
//
// `inflow convert`: image datasets into sharded TFRecord files of
// tf.train.Example records (image_raw, label, height, width, depth; see
// docs/formats.md "Image shards"), the input of `inflow train`.
//
//   inflow convert fashion-mnist --out DIR [--shards N]
//                  [--compression none|gzip|zlib] [--source DIR]
//       reads DIR/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from
//       --source (default /usr/share/datasets/fashion-mnist, Debian's
//       dataset-fashion-mnist; MNIST's files work too) and writes
//       DIR/train-0000i-of-0000N.tfrecord, DIR/test-0000i-of-0000N.tfrecord
//       and DIR/dataset.json (what was written, for tools)
//   inflow convert idx --images F --labels F --out PREFIX [--shards N]
//                  [--compression C]
//   inflow convert npy --images F --labels F --out PREFIX [--shards N]
//                  [--compression C]
//       write PREFIX-0000i-of-0000N.tfrecord from IDX or NPY files: images
//       [N, H, W] or [N, H, W, C] of any numeric type (image_raw holds the
//       elements, little-endian), labels [N] of an integer type
//
// Everything is written under hidden temporary names and renamed only at
// the end (dataset.json last), so an interrupted or failed convert never
// leaves a file that looks complete; shards of an earlier convert into the
// same place that the new one does not replace, and temporaries of dead
// converts, are deleted then. A progress bar on stderr (periodic lines when
// stderr is not a terminal). The last line on stdout is a JSON summary:
// {"out", "compression", "splits": {NAME: {"records", "shards": [...]}}}.
// A missing, truncated or malformed source file: exit 1, the message names
// the file (and the byte offset).

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "inflow/datafiles/idx.h"
#include "inflow/datafiles/image_shards.h"
#include "inflow/datafiles/npy.h"
#include "inflow/datafiles/pending_files.h"
#include "inflow/io/compression.h"
#include "inflow/io/env.h"

#include "command.h"
#include "flag_checks.h"
#include "progress.h"

namespace inflow::tools {
namespace {

constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";

struct Flags {
  std::string out;
  std::string source = kFashionMnistDir;
  std::string images, labels;
  int shards = 1;
  std::string compression = "none";
};

Result<CompressionType> Compression(const std::string& name) {
  if (name == "none") return CompressionType::kNone;
  if (name == "gzip") return CompressionType::kGzip;
  if (name == "zlib") return CompressionType::kZlib;
  return InvalidArgumentError("unknown --compression " + name);
}

struct Split {
  std::string name;  // "train", "test"
  std::string prefix;
  Tensor images, labels;
  std::vector<std::string> shards;
};

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Deletes, in the directories of `splits`, shards named like theirs
// (PREFIX-NNNNN-of-NNNNN.tfrecord) that this convert did not write, and
// temporaries of converts whose process is gone.
void DeleteStaleFiles(Env& env, const std::vector<Split>& splits) {
  for (const Split& split : splits) {
    const std::string dir = Dirname(split.prefix);
    Result<std::vector<std::string>> children = env.GetChildren(dir);
    if (!children.ok()) continue;
    const std::string base = Basename(split.prefix);
    const std::regex shard(
        std::regex_replace(base, std::regex(R"([.^$|()\[\]{}*+?\\])"),
                           R"(\$&)") +
        R"(-\d{5}-of-\d{5}\.tfrecord)");
    for (const std::string& name : *children) {
      const std::string path = dir + "/" + name;
      bool ours = false;
      for (const std::string& s : split.shards) ours |= Basename(s) == name;
      if (std::regex_match(name, shard) && !ours) {
        env.DeleteFile(path).IgnoreError();
      } else if (PendingFiles::IsTemporaryName(name) &&
                 name.rfind("." + base + "-", 0) == 0) {
        const std::string digits = name.substr(name.rfind('-') + 1);
        if (digits.size() > 9) continue;  // not a pid
        const pid_t pid = static_cast<pid_t>(std::stol(digits));
        if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
          env.DeleteFile(path).IgnoreError();
        }
      }
    }
  }
}

Status WriteSplits(const Flags& flags, std::vector<Split>& splits,
                   const std::string& manifest) {
  Env& env = Env::Default();
  INFLOW_ASSIGN_OR_RETURN(CompressionType compression,
                          Compression(flags.compression));
  for (const Split& split : splits) {
    INFLOW_RETURN_IF_ERROR(
        RecursivelyCreateDir(Env::Default(), Dirname(split.prefix)));
  }
  PendingFiles pending(env);
  nlohmann::ordered_json summary = {{"out", flags.out},
                                    {"compression", flags.compression}};
  nlohmann::ordered_json json_splits = nlohmann::ordered_json::object();
  for (Split& split : splits) {
    Progress::Options progress_options;
    progress_options.label = split.name;
    progress_options.total = split.images.shape().dims()[0];
    Progress progress(progress_options);
    ImageShardOptions options;
    options.num_shards = flags.shards;
    options.writer.compression = compression;
    options.progress = [&progress](int64_t done) { progress.Update(done); };
    Result<std::vector<std::string>> shards = WriteImageShards(
        env, split.images, split.labels, split.prefix, options, pending);
    progress.Finish();
    if (!shards.ok()) return shards.status();
    split.shards = *shards;
    const auto& dims = split.images.shape().dims();
    json_splits[split.name] = {{"records", dims[0]},
                               {"height", dims[1]},
                               {"width", dims[2]},
                               {"depth", dims.size() == 4 ? dims[3] : 1},
                               {"image_dtype", DTypeName(split.images.dtype())},
                               {"shards", split.shards}};
  }
  summary["splits"] = json_splits;
  const std::string line = summary.dump();
  if (!manifest.empty()) {
    const std::string tmp = pending.Add(manifest);
    INFLOW_RETURN_IF_ERROR(WriteStringToFile(env, tmp, summary.dump(2) + "\n"));
  }
  INFLOW_RETURN_IF_ERROR(pending.Commit());
  DeleteStaleFiles(env, splits);
  std::printf("%s\n", line.c_str());
  return OkStatus();
}

// DIR/NAME.gz if it exists, else DIR/NAME.
std::string SourceFile(const std::string& dir, const std::string& name) {
  const std::string gz = dir + "/" + name + ".gz";
  if (Env::Default().FileExists(gz).ok()) return gz;
  return dir + "/" + name;
}

Result<Split> ReadFashionMnistSplit(const std::string& source,
                                    const std::string& stem,
                                    const std::string& name,
                                    const std::string& out) {
  const std::string images_path =
      SourceFile(source, stem + "-images-idx3-ubyte");
  const std::string labels_path =
      SourceFile(source, stem + "-labels-idx1-ubyte");
  Split split;
  split.name = name;
  split.prefix = out + "/" + name;
  INFLOW_ASSIGN_OR_RETURN(split.images,
                          ReadIdxFile(Env::Default(), images_path));
  INFLOW_ASSIGN_OR_RETURN(split.labels,
                          ReadIdxFile(Env::Default(), labels_path));
  const auto& dims = split.images.shape().dims();
  if (split.images.dtype() != DType::kUInt8 || dims.size() != 3 ||
      dims[1] != 28 || dims[2] != 28) {
    return InvalidArgumentError(images_path +
                                ": expected uint8 images of 28x28");
  }
  if (split.labels.dtype() != DType::kUInt8) {
    return InvalidArgumentError(labels_path + ": expected uint8 labels");
  }
  INFLOW_RETURN_IF_ERROR(CheckImagesAndLabels(split.images, images_path,
                                              split.labels, labels_path));
  const uint8_t* labels = split.labels.data<uint8_t>();
  for (int64_t i = 0; i < split.labels.shape().dims()[0]; ++i) {
    if (labels[i] > 9) {
      return InvalidArgumentError(labels_path + ": label " + std::to_string(i) +
                                  " is " + std::to_string(labels[i]) +
                                  ", not a class in 0..9");
    }
  }
  return split;
}

Status FashionMnist(const Flags& flags) {
  std::vector<Split> splits;
  INFLOW_ASSIGN_OR_RETURN(
      Split train,
      ReadFashionMnistSplit(flags.source, "train", "train", flags.out));
  INFLOW_ASSIGN_OR_RETURN(
      Split test,
      ReadFashionMnistSplit(flags.source, "t10k", "test", flags.out));
  splits.push_back(std::move(train));
  splits.push_back(std::move(test));
  return WriteSplits(flags, splits, flags.out + "/dataset.json");
}

template <typename ReadFn>
Status General(const Flags& flags, ReadFn&& read) {
  Split split;
  split.name = Basename(flags.out);
  split.prefix = flags.out;
  INFLOW_ASSIGN_OR_RETURN(split.images, read(Env::Default(), flags.images));
  INFLOW_ASSIGN_OR_RETURN(split.labels, read(Env::Default(), flags.labels));
  INFLOW_RETURN_IF_ERROR(CheckImagesAndLabels(split.images, flags.images,
                                              split.labels, flags.labels));
  std::vector<Split> splits;
  splits.push_back(std::move(split));
  return WriteSplits(flags, splits, "");
}

std::function<Status()> Setup(CLI::App& app) {
  auto flags = std::make_shared<Flags>();
  app.require_subcommand(1, 1);
  auto add_common = [&](CLI::App* sub) {
    sub->add_option("--shards", flags->shards, "shards per split (1..99999)")
        ->transform(IntegerIn(1, kMaxShards));
    sub->add_option("--compression", flags->compression,
                    "none, gzip or zlib (TF's GZIP and ZLIB)")
        ->check(CLI::IsMember({"none", "gzip", "zlib"}));
  };
  CLI::App* fashion = app.add_subcommand(
      "fashion-mnist", "Fashion-MNIST's IDX files into train and test shards");
  fashion->add_option("--out", flags->out, "output folder")->required();
  fashion->add_option("--source", flags->source,
                      "folder of the IDX files (.gz or not)");
  add_common(fashion);
  CLI::App* idx = app.add_subcommand("idx", "IDX images and labels to shards");
  CLI::App* npy = app.add_subcommand("npy", "NPY images and labels to shards");
  for (CLI::App* sub : {idx, npy}) {
    sub->add_option("--images", flags->images, "images file")->required();
    sub->add_option("--labels", flags->labels, "labels file")->required();
    sub->add_option("--out", flags->out,
                    "output prefix (PREFIX-00000-of-0000N.tfrecord)")
        ->required();
    add_common(sub);
  }
  return [=]() -> Status {
    if (fashion->parsed()) return FashionMnist(*flags);
    if (idx->parsed()) return General(*flags, ReadIdxFile);
    if (npy->parsed()) return General(*flags, ReadNpyFile);
    return InvalidArgumentError("no convert subcommand given");
  };
}

INFLOW_REGISTER_COMMAND("convert",
                        "Convert image datasets (Fashion-MNIST, IDX, NPY) "
                        "into TFRecord shards of Examples",
                        Setup);

}  // namespace
}  // namespace inflow::tools
