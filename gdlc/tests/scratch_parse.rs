#[test]
fn parse_all() {
    let mut n = 0;
    for entry in std::fs::read_dir("../../shared/games").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().map_or(true, |e| e != "kif") { continue; }
        let file = gdlc::SourceFile::read(&path).unwrap();
        let fe = gdlc::front_end(&file);
        n += 1;
        for d in &fe.diagnostics { if d.is_error() { print!("{}", d.render(&file)); } }
        println!("{} rules={} diags={}", path.display(), fe.rules.len(), fe.diagnostics.len());
    }
    println!("{n} files");
}
