fn main() {
    std::process::exit(xla_spec_cli::main());
}
mod xla_spec_cli {
    pub fn main() -> i32 {
        0
    }
}
