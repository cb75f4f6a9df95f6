// What a packed package (the @mteja/client tarball a shop installs) says about itself: only what an
// installer reads. Its development dependencies are workspace packages no registry has.
module.exports = {
  hooks: {
    beforePacking(pkg) {
      delete pkg.devDependencies;
      delete pkg.scripts;
      return pkg;
    },
  },
};
