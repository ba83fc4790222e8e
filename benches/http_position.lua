-- wrk script: GET /api/position for random British Square positions.
--   wrk -t2 -c64 -d10s --latency -s benches/http_position.lua http://127.0.0.1:7878
-- POSITIONS names a file of positions, one per line, already URL-encoded
-- (default pos100k.url).
local positions = {}
for line in io.lines(os.getenv("POSITIONS") or "pos100k.url") do
    positions[#positions + 1] = line
end
local i = 0

function init(args)
    -- Each thread starts at its own place in the list.
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
    i = math.random(#positions)
end

function request()
    i = i % #positions + 1
    return wrk.format("GET", "/api/position?p=" .. positions[i])
end
