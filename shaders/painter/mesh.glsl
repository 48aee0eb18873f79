// Marching cubes phases of the frame megakernel (placeholder: being written).
void phaseMeshCount() {}
void phaseMeshScan() {}
void phaseMeshEmit() {}
