#include "NvccCommand.h"
#include "llvm/Support/FileSystem.h"
#include <gtest/gtest.h>

using gradlint::isNvcc;
using gradlint::translateNvccCommand;

namespace {

TEST(NvccCommand, RecognisesNvccByFileName) {
  EXPECT_TRUE(isNvcc("/usr/local/cuda/bin/nvcc"));
  EXPECT_TRUE(isNvcc("nvcc"));
  EXPECT_FALSE(isNvcc("/usr/bin/clang++"));
  EXPECT_FALSE(isNvcc("nvcc-wrapper"));
}

TEST(NvccCommand, DropsDeviceOnlyOptionsAndKeepsHostOnes) {
  std::vector<std::string> Clang = translateNvccCommand(
      {"/nonexistent/cuda/bin/nvcc", "-gencode", "arch=compute_90,code=sm_90",
       "-arch=sm_90", "--expt-relaxed-constexpr", "-Xcompiler", "-fPIC,-Wall",
       "--compiler-options=-O2", "-std=c++17", "-DNDEBUG", "-Iinclude", "-x",
       "cu", "-c", "k.cu", "-o", "k.o"});
  std::vector<std::string> Expected = {
      "clang++", "-fPIC", "-Wall", "-O2", "-std=c++17", "-DNDEBUG", "-Iinclude",
      "-x", "cuda", "-c", "k.cu", "-o", "k.o", "--cuda-host-only"};
  EXPECT_EQ(Clang, Expected);
}

TEST(NvccCommand, CudaPathComesFromTheNvccLocation) {
  std::vector<std::string> Clang =
      translateNvccCommand({"/usr/local/cuda/bin/nvcc", "-c", "k.cu"});
  ASSERT_FALSE(Clang.empty());
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    EXPECT_EQ(Clang.back(), "--cuda-path=/usr/local/cuda");
  else
    EXPECT_EQ(Clang.back(), "--cuda-host-only");
}

} // namespace
