//===--- NvccCommand.cpp - read nvcc entries of a compilation database ----===//

#include "NvccCommand.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace gradlint {
namespace {

/// nvcc options that take a value (as the next argument or after '=') and
/// only concern device code generation or nvcc's own driver.
const StringSet<> &droppedWithValue() {
  static const StringSet<> Set = {
      "-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code",
      "--gpu-code", "-ccbin", "--compiler-bindir", "-Xptxas",
      "--ptxas-options", "-Xnvlink", "--nvlink-options", "-Xcudafe",
      "-Xarchive", "--archive-options", "-maxrregcount", "--maxrregcount",
      "-t", "--threads", "-rdc", "--relocatable-device-code", "-diag-suppress",
      "--diag-suppress", "-default-stream", "--default-stream", "-Xfatbin",
      "--fatbin-options", "-split-compile", "--split-compile"};
  return Set;
}

/// nvcc options without a value that clang does not know.
const StringSet<> &droppedAlone() {
  static const StringSet<> Set = {
      "--expt-relaxed-constexpr", "-expt-relaxed-constexpr",
      "--expt-extended-lambda", "-expt-extended-lambda", "--extended-lambda",
      "-extended-lambda", "-use_fast_math", "--use_fast_math", "-lineinfo",
      "--generate-line-info", "-G", "--device-debug", "-dc", "--device-c",
      "-dlink", "--device-link", "--resource-usage", "-res-usage",
      "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets",
      "-keep", "--keep", "-restrict", "--restrict",
      "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
      "--display-error-number", "-err-no", "-dlto", "--dlink-time-opt"};
  return Set;
}

/// nvcc options whose value is a comma-separated list of host options.
bool isHostForwarding(StringRef Option) {
  return Option == "-Xcompiler" || Option == "--compiler-options";
}

std::string cudaPathOf(StringRef Argv0) {
  // .../cuda/bin/nvcc -> .../cuda
  if (sys::path::is_absolute(Argv0))
    return sys::path::parent_path(sys::path::parent_path(Argv0)).str();
  return "/usr/local/cuda";
}

} // namespace

bool isNvcc(StringRef Argv0) {
  return sys::path::filename(Argv0) == "nvcc";
}

std::vector<std::string>
translateNvccCommand(const std::vector<std::string> &Nvcc) {
  std::vector<std::string> Clang = {"clang++"};
  auto AddHostOptions = [&](StringRef List) {
    SmallVector<StringRef, 4> Parts;
    List.split(Parts, ',', -1, /*KeepEmpty=*/false);
    for (StringRef Part : Parts)
      Clang.push_back(Part.str());
  };
  for (size_t I = 1; I < Nvcc.size(); ++I) {
    StringRef Arg = Nvcc[I];
    auto [Name, Value] = Arg.split('=');
    bool HasValue = Arg.contains('=');
    if (droppedAlone().contains(Arg))
      continue;
    if (droppedWithValue().contains(Name)) {
      I += HasValue ? 0 : 1;
      continue;
    }
    if (isHostForwarding(Name)) {
      if (HasValue)
        AddHostOptions(Value);
      else if (I + 1 < Nvcc.size())
        AddHostOptions(Nvcc[++I]);
      continue;
    }
    if ((Arg == "-x" || Arg == "--x") && I + 1 < Nvcc.size()) {
      StringRef Language = Nvcc[++I];
      Clang.push_back("-x");
      Clang.push_back(Language == "cu" ? "cuda" : Language.str());
      continue;
    }
    Clang.push_back(Arg.str());
  }
  // Host-only: clang cannot run the device side without nvcc's own headers
  // wrapping, and the checks only look at host code.
  Clang.push_back("--cuda-host-only");
  std::string CudaPath = cudaPathOf(Nvcc.front());
  if (sys::fs::is_directory(CudaPath))
    Clang.push_back("--cuda-path=" + CudaPath);
  return Clang;
}

namespace {

class NvccTranslatingDatabase : public clang::tooling::CompilationDatabase {
public:
  explicit NvccTranslatingDatabase(const CompilationDatabase &Inner)
      : Inner(Inner) {}

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(StringRef FilePath) const override {
    return translate(Inner.getCompileCommands(FilePath));
  }
  std::vector<std::string> getAllFiles() const override {
    return Inner.getAllFiles();
  }
  std::vector<clang::tooling::CompileCommand>
  getAllCompileCommands() const override {
    return translate(Inner.getAllCompileCommands());
  }

private:
  static std::vector<clang::tooling::CompileCommand>
  translate(std::vector<clang::tooling::CompileCommand> Commands) {
    for (clang::tooling::CompileCommand &Command : Commands)
      if (!Command.CommandLine.empty() && isNvcc(Command.CommandLine.front()))
        Command.CommandLine = translateNvccCommand(Command.CommandLine);
    return Commands;
  }

  const CompilationDatabase &Inner;
};

} // namespace

std::unique_ptr<clang::tooling::CompilationDatabase>
translatingNvccCommands(const clang::tooling::CompilationDatabase &Inner) {
  return std::make_unique<NvccTranslatingDatabase>(Inner);
}

} // namespace gradlint
