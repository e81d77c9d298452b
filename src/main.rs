use std::path::Path;
fn main() {
    let cfg = gpurtl::config::load(None).unwrap();
    let d = gpurtl::rtl::elaborate(&cfg).unwrap();
    let f = gpurtl::emit::files(&d, &cfg);
    gpurtl::emit::write_atomic(Path::new("rtl_out/x"), &f).unwrap();
}
