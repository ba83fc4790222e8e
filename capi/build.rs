//! The shared library's soname: `libboardsolve.so.0` for every 0.x
//! version (cargo names none), so that programs linked against one 0.x
//! release load the next.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libboardsolve.so.0");
    }
}
