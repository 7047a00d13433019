Array.prototype.toLocaleString.call({length: 2**53-1});
