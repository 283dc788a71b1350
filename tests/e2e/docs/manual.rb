# frozen_string_literal: true

# tests/e2e/docs/manual.rb SRC OUT — reads the manual (README.md and
# docs/*.md of checkout SRC) as its reader would and says what is wrong in
# it, one line each, exit status 1: a link to a file that is not there or
# to a heading no page has, a page of docs/ the README does not link to, a
# README of 400 lines or more. It also writes every ```sh block into OUT
# (OUT/NN.sh, first line `# PAGE:LINE`), for docs_commands.sh to run: a
# `sh` block is what a user types, run as shown; blocks of set-up, of the
# suite or of syntax are tagged `shell` or `text` and only shown.
src, out = ARGV
pages = ["README.md"] + Dir.glob("docs/*.md", base: src).sort
problems = []

# GitHub's anchor of a heading: lower case, punctuation dropped, spaces to -.
def slug(text) = text.downcase.delete("`").gsub(/[^\p{Word}\- ]/, "").tr(" ", "-")

# [line number, line] of a page, outside fenced blocks; and its blocks.
texts = {}
blocks = []
pages.each do |page|
  fence = nil
  start = nil
  body = []
  texts[page] = []
  File.readlines(File.join(src, page), chomp: true).each.with_index(1) do |line, n|
    if (m = line.match(/\A\s*```(\w*)/))
      if fence
        blocks << [page, start, body] if fence == "sh"
        fence = nil
      else
        fence = m[1]
        start = n
        body = []
      end
      next
    end
    fence ? body << line : texts[page] << [n, line]
  end
end

anchors = texts.to_h do |page, lines|
  [page, lines.filter_map { |_, l| slug(l[/\A#+ (.*)/, 1]) if l.start_with?("#") }]
end
linked_from_readme = []
texts.each do |page, lines|
  lines.each do |n, line|
    line.scan(/\]\(([^)\s]+)\)/).flatten.each do |target|
      next if target.match?(%r{\A(https?|mailto):})

      file, anchor = target.split("#", 2)
      path = file.empty? ? page : File.join(File.dirname(page), file)
      path = File.expand_path(path, "/").delete_prefix("/")
      linked_from_readme << path if page == "README.md"
      if !File.exist?(File.join(src, path))
        problems << "#{page}:#{n}: a link to #{target}: #{path} is not there"
      elsif anchor && path.end_with?(".md") && !anchors.fetch(path, []).include?(anchor)
        problems << "#{page}:#{n}: a link to #{target}: #{path} has no heading ##{anchor}"
      end
    end
  end
end
(pages - ["README.md"] - linked_from_readme).each { |page| problems << "#{page}: the README does not link to it" }
readme_lines = File.foreach(File.join(src, "README.md")).count
problems << "README.md: #{readme_lines} lines, the front page is to stay under 400" if readme_lines >= 400

blocks.each.with_index(1) do |(page, line, body), i|
  File.write(File.join(out, format("%02d.sh", i)), "# #{page}:#{line}\n#{body.join("\n")}\n")
end
puts "#{pages.size} pages, #{blocks.size} sh blocks, #{readme_lines} README lines"
problems.each { |p| warn p }
exit(problems.empty? ? 0 : 1)
