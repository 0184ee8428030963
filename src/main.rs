//! The `xla-spec` binary; all logic lives in `xla_spec::cli`.

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    std::process::exit(xla_spec::cli::main(&args));
}
