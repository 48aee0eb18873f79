// Rasterizer phases of the frame megakernel (placeholder: being written).
void phaseRasterClear() {}
void phaseRasterSmall() {}
void phaseRasterLarge() {}
void phaseResolve() {}
