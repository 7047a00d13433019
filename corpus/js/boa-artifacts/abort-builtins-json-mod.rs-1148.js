JSON.stringify(Array(4294967295));
