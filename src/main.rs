fn main() {
    std::process::exit(braid_cli::main());
}
