module boardsolve

go 1.19
