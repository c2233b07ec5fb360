"""The part of rules_cc that Bazel 4.2.3's own tools load, mapped to its
native rules. Debian 12 packages Bazel 4.2.3 (bazel-bootstrap) with a
rules_cc (bazel-rules-cc) written for newer Bazels: it loads symbols 4.2.3
lacks (use_cpp_toolchain). Give this directory to Bazel instead:
--override_repository=rules_cc=<gradlint>/tools/bazel/debian/rules_cc.
"""

def cc_library(**attrs):
    native.cc_library(**attrs)

def cc_binary(**attrs):
    native.cc_binary(**attrs)

def cc_test(**attrs):
    native.cc_test(**attrs)

def cc_toolchain(**attrs):
    native.cc_toolchain(**attrs)

def cc_toolchain_suite(**attrs):
    native.cc_toolchain_suite(**attrs)
