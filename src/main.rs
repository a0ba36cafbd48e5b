fn main() {
    std::process::exit(slm::cli::run());
}
