"""gradlint as a Bazel aspect: one action per C/C++/CUDA source of every
cc_library, cc_binary and cc_test it is applied to, so that Bazel's disk
cache, remote cache and remote execution cache and distribute gradlint runs
as they do compiles.

    bazel build //... --aspects=@gradlint//:gradlint.bzl%gradlint_aspect \\
        --output_groups=gradlint_reports          # a JSON report per source
    bazel build //... --aspects=@gradlint//:gradlint.bzl%gradlint_check \\
        --output_groups=gradlint_checks           # fails on any finding
"""

_SOURCE_EXTENSIONS = ["c", "cc", "cpp", "cxx", "c++", "C", "cu"]

def _compiler_flags(ctx, compilation_context):
    flags = []
    flags += ctx.fragments.cpp.copts
    flags += ctx.fragments.cpp.cxxopts
    flags += getattr(ctx.rule.attr, "copts", [])
    for define in compilation_context.defines.to_list():
        flags.append("-D" + define)
    for define in compilation_context.local_defines.to_list():
        flags.append("-D" + define)
    for directory in compilation_context.includes.to_list():
        flags.append("-I" + directory)
    for directory in compilation_context.quote_includes.to_list():
        flags += ["-iquote", directory]
    for directory in compilation_context.system_includes.to_list():
        flags += ["-isystem", directory]
    return flags

def _sources(ctx):
    sources = []
    for target in getattr(ctx.rule.attr, "srcs", []):
        for f in target.files.to_list():
            if f.extension in _SOURCE_EXTENSIONS:
                sources.append(f)
    return sources

def _gradlint_impl(target, ctx, mode, group):
    if CcInfo not in target:
        return []
    compilation_context = target[CcInfo].compilation_context
    flags = _compiler_flags(ctx, compilation_context)
    outputs = []
    for source in _sources(ctx):
        output = ctx.actions.declare_file("{}.{}.gradlint.{}".format(
            ctx.label.name,
            source.short_path.replace("/", "_"),
            "json" if mode == "report" else "ok",
        ))
        args = ctx.actions.args()
        args.add_all([mode, output.path, source.path, "--"])
        args.add_all(flags)
        ctx.actions.run(
            inputs = depset([source], transitive = [compilation_context.headers]),
            outputs = [output],
            executable = ctx.executable._gradlint,
            arguments = [args],
            mnemonic = "Gradlint",
            progress_message = "gradlint %s" % source.short_path,
            use_default_shell_env = True,
        )
        outputs.append(output)
    return [OutputGroupInfo(**{group: depset(outputs)})]

def _report_impl(target, ctx):
    return _gradlint_impl(target, ctx, "report", "gradlint_reports")

def _check_impl(target, ctx):
    return _gradlint_impl(target, ctx, "check", "gradlint_checks")

_ATTRS = {
    "_gradlint": attr.label(
        default = Label("//:gradlint"),
        executable = True,
        cfg = "exec",
    ),
}

gradlint_aspect = aspect(
    implementation = _report_impl,
    fragments = ["cpp"],
    attrs = _ATTRS,
)

gradlint_check = aspect(
    implementation = _check_impl,
    fragments = ["cpp"],
    attrs = _ATTRS,
)
