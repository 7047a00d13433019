Array(4294967295).sort();
