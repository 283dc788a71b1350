# tests/lint/include_rules.rb ROOT — checks the source tree under ROOT
# against its LAYERS file: a file includes only its own folder and lower
# layers, no circle of includes between modules, no C file over 800
# lines. Prints each breach on one line (file: what) and exits 1, or says
# what it checked and exits 0.
MAX_LINES = 800

root = File.expand_path(ARGV.fetch(0) { abort "usage: include_rules.rb ROOT" })
layers_file = File.join(root, "LAYERS")
abort "#{layers_file}: not found (expected the layer list)" unless File.file?(layers_file)

# LAYERS: { section => { folder => level } }
layers = Hash.new { |h, k| h[k] = {} }
section = nil
File.readlines(layers_file, chomp: true).each_with_index do |line, i|
  line = line.sub(/#.*/, "").strip
  next if line.empty?
  if (m = line.match(/\A\[(.+)\]\z/))
    section = m[1]
    next
  end
  abort "#{layers_file}:#{i + 1}: a folder outside any [section]" unless section
  level = layers[section].values.max.to_i + 1
  line.split.each { |folder| layers[section][folder] = level }
end

skip = %r{\A(build[^/]*|\.git|tests|examples)/|/node_modules/}
files = Dir.glob("**/*.{c,h}", base: root).reject { |f| f.match?(skip) }.sort
breaches = []

# The layer of `path` in `section` (a folder path, "." for the top), or nil.
def layer_of(path, section, layers)
  rel = section == "." ? path : path.delete_prefix("#{section}/")
  return nil if section != "." && rel == path
  folder = rel.split("/").first
  rel.include?("/") ? [folder, layers[section][folder]] : nil
end

includes = {}
files.each do |f|
  text = File.read(File.join(root, f))
  lines = text.count("\n")
  breaches << "#{f}: #{lines} lines, more than #{MAX_LINES}" if lines > MAX_LINES
  includes[f] = text.scan(/^#\s*include\s+"([^"]+)"/).flatten.map do |inc|
    File.expand_path(inc, File.join(root, File.dirname(f))).delete_prefix("#{root}/")
  end
  includes[f].each do |target|
    layers.each_key do |sec|
      from, to = layer_of(f, sec, layers), layer_of(target, sec, layers)
      next unless from && to && from[0] != to[0]
      if from[1].nil? || to[1].nil?
        breaches << "#{f}: includes #{target}, and #{sec == "." ? "" : "#{sec}/"}#{(from[1] ? to : from)[0]}/ is not in LAYERS [#{sec}]"
      elsif to[1] >= from[1]
        breaches << "#{f}: includes #{target}: #{from[0]}/ may not include #{to[0]}/ (LAYERS [#{sec}])"
      end
    end
  end
end

# Modules (a .c and its .h, by path without extension) and their includes.
graph = Hash.new { |h, k| h[k] = [] }
includes.each { |f, targets| targets.each { |t| graph[f.sub(/\.[ch]\z/, "")] << t.sub(/\.[ch]\z/, "") } }
graph.each_value { |v| v.uniq! }
# Tarjan's strongly connected components: a component of two or more is a circle.
index = {}; low = {}; stack = []; on = {}; counter = 0
strong = lambda do |v|
  index[v] = low[v] = counter; counter += 1; stack << v; on[v] = true
  graph[v].each do |w|
    next if w == v
    if !index.key?(w) then strong.(w); low[v] = [low[v], low[w]].min
    elsif on[w] then low[v] = [low[v], index[w]].min
    end
  end
  if low[v] == index[v]
    comp = []
    loop { w = stack.pop; on[w] = false; comp << w; break if w == v }
    breaches << "#{comp.sort.join(", ")}: include each other (a circle)" if comp.size > 1
  end
end
graph.keys.each { |v| strong.(v) unless index.key?(v) }

if breaches.empty?
  puts "#{files.size} files: layers as LAYERS says, no circle of includes, none over #{MAX_LINES} lines"
else
  puts breaches
  exit 1
end
